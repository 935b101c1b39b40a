//! The derive's attributes on a field: `#[embed(...)]`, `#[reference(...)]`
//! and `#[many_to_many(...)]`, each parsed into what it says about how the
//! field is stored.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Ident, LitStr, Type};

use super::index::{parse_keys, IndexKey};
use super::keywords::{
    is_ours, CASCADE, EMBED, EMBED_KEYS, ENCRYPT, HISTORY, INDEX, INVERSE, KEEP, MANY_TO_MANY,
    MANY_TO_MANY_KEYS, MAX, NEWEST, OLDEST, ONE_SIDED, ON_DELETE, REFERENCE, REFERENCE_KEYS,
    RESTRICT, SET_NULL, SORT, TO, TWO_SIDED, UNBOUNDED, UNIQUE, UNSET,
};
use super::list::{attr_span, for_each_key, unknown_key, SeenKeys};
use super::value::{flag, in_parens, max_value, str_value, type_value, value};
use crate::ctxt::Ctxt;

/// `keep = "newest" | "oldest"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    Newest,
    Oldest,
}

/// `#[embed(...)]`.
pub struct EmbedAttr {
    pub span: Span,
    /// `max = N`.
    pub max: Option<u32>,
    /// Where `N` is written.
    pub max_span: Option<Span>,
    /// `unbounded = "reason"`: the explicit escape hatch.
    pub unbounded: Option<LitStr>,
    pub keep: Option<Keep>,
    pub history: Option<Type>,
}

/// `#[reference(...)]`.
pub struct RefAttr {
    pub span: Span,
    pub index: bool,
    pub unique: bool,
    pub to: Option<Type>,
    pub sort: Option<IndexKey>,
    /// `on_delete = "..."`, with the span of its value.
    pub on_delete: Option<(OnDelete, Span)>,
}

/// What deleting the parent does to a child that references it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OnDelete {
    Restrict,
    Cascade,
    SetNull,
    Unset,
}

impl OnDelete {
    /// The written value.
    pub fn name(self) -> &'static str {
        match self {
            OnDelete::Restrict => RESTRICT,
            OnDelete::Cascade => CASCADE,
            OnDelete::SetNull => SET_NULL,
            OnDelete::Unset => UNSET,
        }
    }
}

/// `#[many_to_many(...)]`.
pub struct LinkAttr {
    pub span: Span,
    pub two_sided: bool,
    pub to: Option<Type>,
    pub inverse: Option<Ident>,
    /// `max = N`; `None` means `DEFAULT_LINK_MAX`.
    pub max: Option<u32>,
    /// Where `N` is written.
    pub max_span: Option<Span>,
}

/// What a field's attribute says about how it is stored.
pub enum FieldKind {
    Plain,
    Embed(EmbedAttr),
    Reference(RefAttr),
    ManyToMany(LinkAttr),
}

/// One of the derive's storage attributes on a field (`#[embed]`,
/// `#[reference]` or `#[many_to_many]`), with its name.
pub struct StorageAttr<'a> {
    pub name: &'static str,
    pub attr: &'a Attribute,
}

/// Parses the derive's attributes on one field: each one is parsed, so that
/// its own mistakes are reported, and the kind is the first one's. Returns
/// the storage attributes in the order written as well: more than one is a
/// conflict, reported by `check` (a field is stored one way).
pub fn field<'a>(cx: &Ctxt, attrs: &'a [Attribute]) -> (FieldKind, Vec<StorageAttr<'a>>) {
    let mut kind = FieldKind::Plain;
    let mut written = Vec::new();
    for attr in attrs.iter().filter(|a| is_ours(a)) {
        let (name, parsed) = if attr.path().is_ident(EMBED) {
            (EMBED, FieldKind::Embed(embed(cx, attr)))
        } else if attr.path().is_ident(REFERENCE) {
            (REFERENCE, FieldKind::Reference(reference(cx, attr)))
        } else if attr.path().is_ident(MANY_TO_MANY) {
            (MANY_TO_MANY, FieldKind::ManyToMany(many_to_many(cx, attr)))
        } else {
            cx.error_spanned_by(
                attr,
                "`#[document(...)]` goes on the struct, not on a field",
            );
            continue;
        };
        if written.is_empty() {
            kind = parsed;
        }
        written.push(StorageAttr { name, attr });
    }
    (kind, written)
}

/// Reports the derive's attributes where they do not belong (a container or
/// a variant); `where_` says where that is.
pub fn reject_field_attrs(cx: &Ctxt, attrs: &[Attribute], where_: &str) {
    for attr in attrs {
        for name in [EMBED, REFERENCE, MANY_TO_MANY, ENCRYPT] {
            if attr.path().is_ident(name) {
                cx.error_spanned_by(
                    attr,
                    format!("`#[{name}]` goes on a field, not on {where_}"),
                );
            }
        }
    }
}

/// `#[embed(max = N)]`, `#[embed(max = N, keep = "newest", history = T)]`,
/// `#[embed(unbounded = "reason")]`.
fn embed(cx: &Ctxt, attr: &Attribute) -> EmbedAttr {
    let mut out = EmbedAttr {
        span: attr_span(attr),
        max: None,
        max_span: None,
        unbounded: None,
        keep: None,
        history: None,
    };
    let mut keep_span = None;
    let mut history_span = None;
    let mut unbounded_span = None;
    let mut max_given = false;
    let mut unknown = false;
    for_each_key(
        cx,
        attr,
        &mut SeenKeys::default(),
        |meta, name, span| match name {
            MAX => {
                max_given = true;
                (out.max, out.max_span) = max_value(cx, meta, name, span);
            }
            UNBOUNDED => {
                unbounded_span = Some(span);
                if let Some(reason) = str_value(cx, meta, name, span, "\"why this cannot grow\"") {
                    if reason.value().trim().is_empty() {
                        cx.error_spanned_by(
                        &reason,
                        "`unbounded` needs a reason: say why this field cannot grow without bound",
                    );
                    }
                    out.unbounded = Some(reason);
                }
            }
            KEEP => {
                keep_span = Some(span);
                if let Some(lit) = str_value(cx, meta, name, span, "\"newest\"") {
                    match lit.value().as_str() {
                        NEWEST => out.keep = Some(Keep::Newest),
                        OLDEST => out.keep = Some(Keep::Oldest),
                        other => cx.error_spanned_by(
                            &lit,
                            format!("`keep` must be \"newest\" or \"oldest\", not \"{other}\""),
                        ),
                    }
                }
            }
            HISTORY => {
                history_span = Some(span);
                out.history = type_value(cx, meta, name, span);
            }
            _ => {
                unknown_key(cx, EMBED, name, span, EMBED_KEYS);
                unknown = true;
            }
        },
    );
    match (unbounded_span, max_given) {
        (Some(span), true) => {
            cx.error_at(span, "`unbounded` and `max` contradict each other: keep one");
        }
        (Some(_), false) => {
            if let Some(span) = keep_span.or(history_span) {
                cx.error_at(
                    span,
                    "`keep` and `history` apply to a bounded array (`max = N`), not an `unbounded` one",
                );
            }
        }
        (None, _) if max_given || unknown => {}
        (None, _) => cx.error_spanned_by(
            attr,
            "`#[embed]` needs `max = N`, the most items the field may hold: `#[embed(max = 100)]` (or `#[embed(unbounded = \"reason\")]` to opt out explicitly)",
        ),
    }
    if let (Some(span), None) = (history_span, keep_span) {
        cx.error_at(
            span,
            "`history` needs `keep = \"newest\"` or `keep = \"oldest\"`: which items stay embedded",
        );
    }
    out
}

/// `#[reference(index, unique, to = Type, sort(field = desc))]`.
fn reference(cx: &Ctxt, attr: &Attribute) -> RefAttr {
    let mut out = RefAttr {
        span: attr_span(attr),
        index: false,
        unique: false,
        to: None,
        sort: None,
        on_delete: None,
    };
    let mut unknown = false;
    for_each_key(
        cx,
        attr,
        &mut SeenKeys::default(),
        |meta, name, span| match name {
            INDEX => out.index = flag(cx, meta, name, span),
            UNIQUE => out.unique = flag(cx, meta, name, span),
            TO => out.to = type_value(cx, meta, name, span),
            ON_DELETE => out.on_delete = on_delete(cx, meta, name, span),
            SORT => {
                if let Some(keys) = in_parens(cx, meta, name, span, "at = desc", parse_keys) {
                    let mut keys = keys.into_iter();
                    match (keys.next(), keys.next()) {
                    (Some(key), None) if key.dir.is_kind() => cx.error_at(
                        key.name.span(),
                        format!("a sort is `asc` or `desc`: `{}` is a kind of index key, which keeps no order to page by", key.dir.as_text()),
                    ),
                    (Some(key), None) => out.sort = Some(key),
                    (None, _) => cx.error_at(span, "`sort()` is empty: `sort(at = desc)`"),
                    (Some(_), Some(extra)) => cx.error_at(
                        extra.name.span(),
                        "`sort` takes one field; declare a longer compound index with `#[document(index(keys(...)))]`",
                    ),
                }
                }
            }
            _ => {
                unknown_key(cx, REFERENCE, name, span, REFERENCE_KEYS);
                unknown = true;
            }
        },
    );
    if !out.index && !unknown {
        cx.error_spanned_by(
            attr,
            "a reference must be indexed: write `#[reference(index)]`",
        );
    }
    out
}

/// `on_delete = "restrict" | "cascade" | "set_null" | "unset"`.
fn on_delete(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    name: &str,
    span: Span,
) -> Option<(OnDelete, Span)> {
    let lit = str_value(cx, meta, name, span, "\"cascade\"")?;
    let policy = match lit.value().as_str() {
        RESTRICT => OnDelete::Restrict,
        CASCADE => OnDelete::Cascade,
        SET_NULL => OnDelete::SetNull,
        UNSET => OnDelete::Unset,
        _ => {
            cx.error_spanned_by(
                &lit,
                "`on_delete` is \"restrict\" (refuse while children remain), \"cascade\" (delete them), \"set_null\" or \"unset\" (clear an `Option` reference)",
            );
            return None;
        }
    };
    Some((policy, lit.span()))
}

/// `#[many_to_many(two_sided, to = T, inverse = field, max = N)]` or
/// `#[many_to_many(one_sided, to = T, max = N)]`.
fn many_to_many(cx: &Ctxt, attr: &Attribute) -> LinkAttr {
    let mut out = LinkAttr {
        span: attr_span(attr),
        two_sided: false,
        to: None,
        inverse: None,
        max: None,
        max_span: None,
    };
    let mut two_sided = None;
    let mut one_sided = None;
    let mut inverse_span = None;
    let mut unknown = false;
    for_each_key(
        cx,
        attr,
        &mut SeenKeys::default(),
        |meta, name, span| match name {
            TWO_SIDED | ONE_SIDED => {
                flag(cx, meta, name, span);
                let (this, other, other_name) = if name == TWO_SIDED {
                    (&mut two_sided, one_sided, ONE_SIDED)
                } else {
                    (&mut one_sided, two_sided, TWO_SIDED)
                };
                if other.is_some() {
                    cx.error_at(
                        span,
                        format!("`{name}` contradicts `{other_name}`: keep one"),
                    );
                }
                *this = Some(span);
            }
            TO => out.to = type_value(cx, meta, name, span),
            INVERSE => {
                inverse_span = Some(span);
                if let Some(input) = value(cx, meta, name, span, "field") {
                    match input.call(Ident::parse_any) {
                        Ok(ident) => out.inverse = Some(ident),
                        Err(err) => cx.syn_error(err),
                    }
                }
            }
            MAX => (out.max, out.max_span) = max_value(cx, meta, name, span),
            _ => {
                unknown_key(cx, MANY_TO_MANY, name, span, MANY_TO_MANY_KEYS);
                unknown = true;
            }
        },
    );
    out.two_sided = two_sided.is_some();
    match (two_sided, one_sided) {
        (None, None) if unknown => {}
        (None, None) => cx.error_spanned_by(
            attr,
            "`#[many_to_many]` needs `two_sided` (both models keep an id array, written in one transaction) or `one_sided` (only this model keeps one)",
        ),
        (Some(_), _) if inverse_span.is_none() && !unknown => cx.error_spanned_by(
            attr,
            "`#[many_to_many(two_sided)]` needs `inverse = field`: the id array on the other model that points back here",
        ),
        (None, Some(_)) => {
            if let Some(span) = inverse_span {
                cx.error_at(
                    span,
                    "`inverse` only applies to `two_sided`: a one-sided link has no array on the other model",
                );
            }
        }
        _ => {}
    }
    if out.to.is_none() && !unknown {
        cx.error_spanned_by(
            attr,
            "`#[many_to_many]` needs `to = Model`: the model whose ids the array holds",
        );
    }
    out
}
