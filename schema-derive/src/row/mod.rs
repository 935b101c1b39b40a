//! `#[derive(Row)]`: an output row of a `group`, `#[row(of = Order)]`, each
//! field with `#[group(...)]` saying where it comes from.
//!
//! Parse (this module: the container's `of` and `crate`, each field's
//! source), then expand (`expand`): the `Row` impl whose `spec` builds the
//! `$group`, every operand named by the model's typed path (so a path the
//! model lacks does not compile, spanned on it) and passed through a check
//! whose trait bound carries the rule (a numeric operand, the row field's
//! type), and the row's own field constants. Every mistake in the
//! attributes is reported at once; after one, no impl is generated.

mod ast;
mod expand;

use ast::{ArrayKind, ModelPath, Operand, RowField, RowInput, Source, Trunc};

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{DeriveInput, Expr, Ident, Path};

use crate::ctxt::Ctxt;

/// The container attribute.
const ROW: &str = "row";
/// The field attribute.
const GROUP: &str = "group";
/// The keys of `#[group(...)]`.
const KEYS: &[&str] = &[
    "key",
    "trunc",
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "first",
    "last",
    "push",
    "top",
    "bottom",
    "add_to_set",
    "by",
    "bytes",
];
/// The units `trunc` takes.
const UNITS: &[&str] = &[
    "year", "quarter", "month", "week", "day", "hour", "minute", "second",
];

/// Parses, checks and expands one `#[derive(Row)]`.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let parsed = parse(&cx, input);
    match (cx.finish(), parsed) {
        (Ok(()), Some(row)) => expand::expand(input, &row),
        (Err(errors), _) => errors,
        (Ok(()), None) => TokenStream::new(),
    }
}

/// A model path from an attribute value: `total`, `customer.email`.
fn model_path(expr: &Expr) -> Option<ModelPath> {
    match expr {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| vec![i.clone()]),
        // `details.tag()`: an enum's tag, as the last segment (see
        // `expand::field_ref`).
        Expr::MethodCall(m) if m.method == "tag" && m.args.is_empty() && m.turbofish.is_none() => {
            let mut path = model_path(&m.receiver)?;
            path.push(Ident::new_raw("tag", m.method.span()));
            Some(path)
        }
        Expr::Field(f) => {
            let mut path = model_path(&f.base)?;
            match &f.member {
                syn::Member::Named(name) => path.push(name.clone()),
                syn::Member::Unnamed(_) => return None,
            }
            Some(path)
        }
        _ => None,
    }
}

const PATH_HELP: &str = "name a field of the model by its Rust name, a nested one through dots: `total`, `customer.email`, `items.unit_price`, an enum's tag with `details.tag()`";

fn parse<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<RowInput<'a>> {
    let mut of: Option<Path> = None;
    let mut krate: Option<Path> = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident(ROW)) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("of") {
                let path: Path = meta.value()?.parse()?;
                if of.replace(path).is_some() {
                    cx.error_at(meta.path.span(), "duplicate `of`");
                }
            } else if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                match lit.parse::<Path>() {
                    Ok(path) => krate = Some(path),
                    Err(_) => cx.error_spanned_by(
                        &lit,
                        "`crate` takes a path: `crate = \"my_crate::schema_core\"`",
                    ),
                }
            } else {
                cx.error_at(
                    meta.path.span(),
                    "unknown key in `#[row(...)]`: expected `of = Model` or `crate = \"...\"`",
                );
                if meta.input.peek(syn::Token![=]) {
                    let _: Expr = meta.value()?.parse()?;
                }
            }
            Ok(())
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
        }
    }
    if of.is_none() {
        cx.error_at(
            input.ident.span(),
            "a row names the model it groups: add `#[row(of = Order)]`",
        );
    }
    let fields = crate::projection::named_fields(
        cx,
        input,
        "a row",
        "a row is a struct with named fields, each with `#[group(...)]` saying where it comes from",
    )?;
    let container = crate::serde::container(&input.attrs);
    let row_name = syn::ext::IdentExt::unraw(&input.ident).to_string();
    let is_model = input.attrs.iter().any(|a| a.path().is_ident("document"));
    let mut out = Vec::new();
    for field in fields {
        let Some((ident, name, stored)) = crate::projection::stored_field(
            cx,
            field,
            &container,
            "`#[serde(flatten)]` is not supported in a row: give each field its own `#[group(...)]`",
        ) else {
            continue;
        };
        let mut sources = Vec::new();
        for attr in field.attrs.iter().filter(|a| a.path().is_ident(GROUP)) {
            if let Some(source) = parse_group(cx, attr) {
                sources.push((attr.span(), source));
            }
        }
        let has_group = field.attrs.iter().any(|a| a.path().is_ident(GROUP));
        if sources.len() > 1 {
            cx.error_at(
                sources[1].0,
                format!("`{row_name}.{name}` has two sources: keep one `#[group(...)]`"),
            );
        }
        if let (true, Some((_, Source::Array { max, span, .. }))) = (is_model, sources.first()) {
            if let Some(bound) = embed_max(field).filter(|bound| max > bound) {
                cx.error_at(
                    *span,
                    format!(
                        "`{row_name}.{name}` keeps up to {max} items, and the model's `#[embed(max = {bound})]` on it allows {bound}: lower the accumulator's `max` to {bound} or less"
                    ),
                );
            }
        }
        match sources.into_iter().next() {
            Some((_, source)) => out.push(RowField {
                ident,
                ty: &field.ty,
                stored,
                source,
            }),
            None if !has_group => cx.error_at(
                ident.span(),
                format!(
                    "`{row_name}.{name}` has no source: say where it comes from, a group key \
                     (`#[group(key = customer_id)]`) or an accumulator (`#[group(count)]`, \
                     `#[group(sum = total)]`, `#[group(push = title, max = 5)]`, ...)"
                ),
            ),
            None => {}
        }
    }
    if is_model {
        keyed_by_id(cx, &row_name, &input.ident, &out);
    }
    let krate = match krate {
        Some(path) => quote::quote!(#path),
        None => quote::quote!(::schema_core),
    };
    Some(RowInput {
        of: of?,
        model: is_model,
        krate,
        fields: out,
    })
}

/// A row that is a model (written with `merge_into` or `out`) is keyed by
/// its `_id` alone, so that one row is one document.
fn keyed_by_id(cx: &Ctxt, row_name: &str, ident: &Ident, fields: &[RowField]) {
    let is_key = |f: &&RowField| matches!(f.source, Source::Key(..));
    let id_key = fields.iter().any(|f| f.stored == "_id" && is_key(&f));
    if !id_key {
        cx.error_at(
            ident.span(),
            format!(
                "`{row_name}` is a model (`#[document(..)]`), so each row is one of its documents: make its `_id` field the group key (`#[serde(rename = \"_id\")] #[group(key = product_id)] id: ..`)"
            ),
        );
    }
    for field in fields.iter().filter(is_key).filter(|f| f.stored != "_id") {
        cx.error_at(
            field.ident.span(),
            format!(
                "`{row_name}.{}` is a second group key, and a row that is a model is keyed by its `_id` alone: read it with an accumulator (`#[group(first = ..)]`), or group into a row that is not a model",
                field.ident
            ),
        );
    }
}

/// The `max` of a field's `#[embed(max = N)]`, on a row that is a model
/// (the `Document` derive reports any mistake in it).
fn embed_max(field: &syn::Field) -> Option<u32> {
    let mut found = None;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("embed")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("max") {
                let lit: syn::LitInt = meta.value()?.parse()?;
                found = lit.base10_parse::<u32>().ok();
            } else if meta.input.peek(syn::Token![=]) {
                let _: Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    found
}

/// What one `#[group(...)]` holds, before it is checked.
#[derive(Default)]
struct Keys {
    source: Option<(String, Span, Option<Expr>)>,
    trunc: Option<(Trunc, Span)>,
    max_bound: Option<(u32, Span)>,
    bytes: Option<u64>,
    by: Vec<(ModelPath, i32)>,
    by_span: Option<Span>,
}

fn parse_group(cx: &Ctxt, attr: &syn::Attribute) -> Option<Source> {
    let mut keys = Keys::default();
    let mut ok = true;
    let parsed = attr.parse_nested_meta(|meta| {
        let span = meta.path.span();
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let value = |meta: &syn::meta::ParseNestedMeta| -> syn::Result<Option<Expr>> {
            if meta.input.peek(syn::Token![=]) {
                Ok(Some(meta.value()?.parse()?))
            } else {
                Ok(None)
            }
        };
        match key.as_str() {
            "by" => {
                keys.by_span = Some(span);
                let content;
                syn::parenthesized!(content in meta.input);
                // `by(at = desc, items.qty = asc)`, read token by token:
                // an assignment is no expression syn parses without its
                // `full` feature, which a user's build may not turn on.
                while !content.is_empty() {
                    let mut path: ModelPath = vec![content.parse()?];
                    while content.peek(syn::Token![.]) {
                        content.parse::<syn::Token![.]>()?;
                        path.push(content.parse()?);
                    }
                    content.parse::<syn::Token![=]>()?;
                    let dir: Ident = content.parse()?;
                    match dir.to_string().as_str() {
                        "asc" => keys.by.push((path, 1)),
                        "desc" => keys.by.push((path, -1)),
                        _ => cx.error_spanned_by(&dir, "a sort direction is `asc` or `desc`"),
                    }
                    if !content.is_empty() {
                        content.parse::<syn::Token![,]>()?;
                    }
                }
            }
            "trunc" if !meta.input.peek(syn::Token![=]) => {
                keys.trunc = Some((Trunc::Declared, span));
            }
            "trunc" => {
                let unit: Ident = meta.value()?.parse()?;
                let text = unit.to_string();
                if !UNITS.contains(&text.as_str()) {
                    ok = false;
                    cx.error_spanned_by(
                        &unit,
                        format!(
                            "`trunc` takes a unit of time{} (or none, for a time series' declared granularity)",
                            crate::suggest::hint(&text, UNITS)
                        ),
                    );
                }
                keys.trunc = Some((Trunc::Unit(text), span));
            }
            "bytes" => {
                let lit: syn::LitInt = meta.value()?.parse()?;
                match lit.base10_parse::<u64>() {
                    Ok(n) if n > 0 => keys.bytes = Some(n),
                    _ => cx.error_spanned_by(
                        &lit,
                        "`bytes` is the most bytes one item takes: a positive integer",
                    ),
                }
            }
            "max" => match value(&meta)? {
                Some(Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(lit),
                    ..
                })) => match lit.base10_parse::<u32>() {
                    Ok(n) if n > 0 => keys.max_bound = Some((n, span)),
                    _ => cx.error_spanned_by(
                        &lit,
                        "`max` is a positive number of items (at most u32::MAX)",
                    ),
                },
                other => set_source(cx, &mut keys, key, span, other),
            },
            k if KEYS.contains(&k) => {
                let v = value(&meta)?;
                set_source(cx, &mut keys, key, span, v);
            }
            _ => {
                ok = false;
                cx.error_at(
                    span,
                    format!(
                        "unknown key in `#[group(...)]`{}",
                        crate::suggest::hint(&key, KEYS)
                    ),
                );
                if meta.input.peek(syn::Token![=]) {
                    let _: Expr = meta.value()?.parse()?;
                }
            }
        }
        Ok(())
    });
    if let Err(e) = parsed {
        cx.syn_error(e);
        return None;
    }
    if !ok {
        return None;
    }
    check_group(cx, attr, keys)
}

fn set_source(cx: &Ctxt, keys: &mut Keys, key: String, span: Span, value: Option<Expr>) {
    if let Some((first, ..)) = &keys.source {
        cx.error_at(
            span,
            format!("`{key}` and `{first}` in one `#[group(...)]`: a row field has one source"),
        );
        return;
    }
    keys.source = Some((key, span, value));
}

/// The rules of one `#[group(...)]`, each mistake reported on its key.
fn check_group(cx: &Ctxt, attr: &syn::Attribute, keys: Keys) -> Option<Source> {
    let Some((key, span, value)) = keys.source else {
        cx.error_spanned_by(
            attr,
            "`#[group(...)]` needs a source: `key = field`, `count`, `sum = field`, ...",
        );
        return None;
    };
    let array = match key.as_str() {
        "push" => Some(ArrayKind::Push),
        "top" => Some(ArrayKind::Top),
        "bottom" => Some(ArrayKind::Bottom),
        "add_to_set" => Some(ArrayKind::AddToSet),
        _ => None,
    };
    if array.is_none() {
        if let Some((_, at)) = keys.max_bound {
            cx.error_at(at, "`max = N` bounds an array accumulator (`push`, `top`, `bottom`, `add_to_set`); the largest value of a field is `max = field`");
        }
        if keys.bytes.is_some() {
            cx.error_spanned_by(attr, "`bytes` sizes the items of an array accumulator (`push`, `top`, `bottom`, `add_to_set`)");
        }
    }
    if !matches!(array, Some(ArrayKind::Top | ArrayKind::Bottom)) {
        if let Some(at) = keys.by_span {
            cx.error_at(at, "`by(...)` orders `top` and `bottom`: `#[group(top = title, by(at = desc), max = 5)]`");
        }
    }
    if key != "key" {
        if let Some((_, at)) = &keys.trunc {
            cx.error_at(
                *at,
                "`trunc` truncates a date group key: `#[group(key = created_at, trunc = day)]`",
            );
        }
    }
    if key == "count" {
        if value.is_some() {
            cx.error_at(span, "`count` takes no value: `#[group(count)]`");
        }
        return Some(Source::Count);
    }
    let Some(value) = value else {
        cx.error_at(
            span,
            format!("`{key}` names the field it reads: `{key} = field`"),
        );
        return None;
    };
    let path = |cx: &Ctxt| {
        let p = model_path(&value);
        if p.is_none() {
            cx.error_spanned_by(&value, format!("`{key}` reads one field: {PATH_HELP}"));
        }
        p
    };
    match key.as_str() {
        "key" => Some(Source::Key(path(cx)?, keys.trunc.map(|(u, _)| u))),
        "sum" | "avg" => {
            let op = if key == "sum" { "$sum" } else { "$avg" };
            if let Expr::Binary(b) = &value {
                if let (syn::BinOp::Mul(_), Some(a), Some(c)) =
                    (&b.op, model_path(&b.left), model_path(&b.right))
                {
                    return Some(Source::Numeric(op, Operand::Product(a, c)));
                }
                cx.error_spanned_by(&value, format!("`{key}` reads a field or the product of two (`items.qty * items.unit_price`): {PATH_HELP}"));
                return None;
            }
            Some(Source::Numeric(op, Operand::Path(path(cx)?)))
        }
        "min" | "max" | "first" | "last" => {
            let op = match key.as_str() {
                "min" => "$min",
                "max" => "$max",
                "first" => "$first",
                _ => "$last",
            };
            Some(Source::Same(op, path(cx)?))
        }
        _ => {
            let kind = array?;
            let p = path(cx)?;
            let Some((max, _)) = keys.max_bound else {
                cx.error_at(span, format!(
                    "`{key}` builds an array, and every array is bounded: add `max = N`, the most items a row keeps (`#[group({key} = ..., max = 5)]`)"
                ));
                return None;
            };
            if matches!(kind, ArrayKind::Top | ArrayKind::Bottom) && keys.by.is_empty() {
                cx.error_at(
                    span,
                    format!("`{key}` keeps the items first by a sort: add `by(field = desc)`"),
                );
                return None;
            }
            Some(Source::Array {
                kind,
                path: p,
                max,
                bytes: keys.bytes,
                by: keys.by,
                span,
            })
        }
    }
}
