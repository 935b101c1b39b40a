//! `#[copy(from = skus, field = color)]` and `#[snapshot(of = Product,
//! field = current_price)]` on a field: a copy of a field of the documents
//! it references (seed 004's extended reference), which follows its source;
//! or a snapshot of one, taken once and never followed (seed 001's
//! `unit_price`, the price at the time of sale).

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{Attribute, Ident, Type};

use super::keywords::{
    CONSUMER, COPY, COPY_KEYS, FIELD, FOLLOW, FROM, OF, SNAPSHOT, SNAPSHOT_KEYS, TRANSACTION,
};
use super::list::{attr_span, for_each_key, unknown_key, SeenKeys};
use super::value::{str_value, type_value, value};
use crate::ctxt::Ctxt;

/// Which of the two a field declares.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    /// `#[copy]`: follows its source.
    Follows,
    /// `#[snapshot]`: taken once.
    Snapshot,
}

/// `#[copy(...)]` or `#[snapshot(...)]`.
pub struct CopyAttr {
    pub span: Span,
    pub kind: CopyKind,
    /// `from = field`: the reference or link of the same struct (a copy).
    pub from: Option<Ident>,
    /// `of = Type`: the source model (a snapshot).
    pub of: Option<Type>,
    /// `field = name`: the source model's field.
    pub field: Option<Ident>,
    /// `follow = "consumer"`: a named consumer refreshes the holders after
    /// the source commits (`false`: the source's transaction does).
    pub by_consumer: bool,
}

impl CopyAttr {
    /// The attribute's name as written.
    pub fn name(&self) -> &'static str {
        match self.kind {
            CopyKind::Follows => COPY,
            CopyKind::Snapshot => SNAPSHOT,
        }
    }
}

/// The field's `#[copy]` or `#[snapshot]`, the first one when there are
/// several (each parsed; a second is reported).
pub fn copy(cx: &Ctxt, attrs: &[Attribute]) -> Option<CopyAttr> {
    let mut out: Option<CopyAttr> = None;
    for attr in attrs {
        let kind = if attr.path().is_ident(COPY) {
            CopyKind::Follows
        } else if attr.path().is_ident(SNAPSHOT) {
            CopyKind::Snapshot
        } else {
            continue;
        };
        let parsed = parse(cx, attr, kind);
        match &out {
            Some(first) => cx.error_at(
                parsed.span,
                format!(
                    "a field holds one copy: `#[{}]` is already declared on it",
                    first.name()
                ),
            ),
            None => out = Some(parsed),
        }
    }
    out
}

fn parse(cx: &Ctxt, attr: &Attribute, kind: CopyKind) -> CopyAttr {
    let mut out = CopyAttr {
        span: attr_span(attr),
        kind,
        from: None,
        of: None,
        field: None,
        by_consumer: false,
    };
    let (name, keys) = match kind {
        CopyKind::Follows => (COPY, COPY_KEYS),
        CopyKind::Snapshot => (SNAPSHOT, SNAPSHOT_KEYS),
    };
    for_each_key(
        cx,
        attr,
        &mut SeenKeys::default(),
        |meta, key, span| match (kind, key) {
            (CopyKind::Follows, FROM) | (_, FIELD) => {
                let Some(input) = value(cx, meta, key, span, "field_name") else {
                    return;
                };
                match input.call(Ident::parse_any) {
                    Ok(ident) if key == FROM => out.from = Some(ident),
                    Ok(ident) => out.field = Some(ident),
                    Err(_) => {
                        cx.error_at(span, format!("`{key}` names a field: `{key} = field_name`"))
                    }
                }
            }
            (CopyKind::Snapshot, OF) => out.of = type_value(cx, meta, key, span),
            (CopyKind::Follows, FOLLOW) => {
                let Some(lit) = str_value(cx, meta, key, span, "\"consumer\"") else {
                    return;
                };
                match lit.value().as_str() {
                    TRANSACTION => out.by_consumer = false,
                    CONSUMER => out.by_consumer = true,
                    _ => cx.error_spanned_by(
                        &lit,
                        "`follow` is \"transaction\" (the source's transaction rewrites every copy) or \"consumer\" (a named consumer refreshes the copies after the commit, in batches)",
                    ),
                }
            }
            _ => unknown_key(cx, name, key, span, keys),
        },
    );
    let example = match kind {
        CopyKind::Follows => "`#[copy(from = skus, field = color)]`",
        CopyKind::Snapshot => "`#[snapshot(of = Product, field = current_price)]`",
    };
    match kind {
        CopyKind::Follows if out.from.is_none() => cx.error_at(
            out.span,
            format!("`copy` needs `from = <field>`, the reference or link whose documents it copies: {example}"),
        ),
        CopyKind::Snapshot if out.of.is_none() => cx.error_at(
            out.span,
            format!("`snapshot` needs `of = <Model>`, the model whose field it keeps as it was: {example}"),
        ),
        _ => {}
    }
    if out.field.is_none() {
        cx.error_at(
            out.span,
            format!(
                "`{name}` needs `field = <name>`, the source model's field it holds: {example}"
            ),
        );
    }
    out
}
