//! The index grammar: `index(keys(...), name = "...", unique, sparse, hidden,
//! expire_after = N, partial(...), collation(...), weights(...),
//! default_language = "...")` in `#[document(...)]`. This file holds the
//! attribute and its options; [`keys`] the key lists (also read by
//! `#[reference(sort(...))]`), [`partial`] the partial filters.

mod keys;
mod partial;

pub(super) use keys::parse_keys;
pub use keys::{Dir, IndexKey, KeyName};
pub use partial::{PartialTest, Value};

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{LitStr, Token};

use super::collation::{collation, CollationAttr};
use super::keywords::{
    COLLATION, DEFAULT_LANGUAGE, EXPIRE_AFTER, HIDDEN, INDEX, INDEX_KEYS, KEYS, NAME, PARTIAL,
    SPARSE, UNIQUE, WEIGHTS,
};
use super::list::{for_each_nested_key, unknown_key};
use super::value::{flag, in_parens, int_value, is_list, str_value};
use crate::ctxt::Ctxt;
use keys::{parse_index_keys, parse_key_name};
use partial::{parse_partial, PartialCond};

/// The most seconds `expire_after` may hold (the server stores an int32).
const MAX_EXPIRE_AFTER: u64 = i32::MAX as u64;

/// One container `index(...)`.
pub struct IndexAttr {
    /// The `index` keyword, where errors about the whole index point.
    pub span: Span,
    pub keys: Vec<IndexKey>,
    pub name: Option<LitStr>,
    pub unique: bool,
    pub sparse: bool,
    /// `hidden`: built, but not used by the planner.
    pub hidden: bool,
    /// Seconds, with the span of the value.
    pub expire_after: Option<(u64, Span)>,
    pub partial: Vec<PartialCond>,
    /// `collation(locale = "en", strength = 2)`.
    pub collation: Option<CollationAttr>,
    /// `weights(title = 10, ...)` of a text index, each with the span of
    /// its value.
    pub weights: Vec<(KeyName, u32, Span)>,
    /// `default_language = "english"` of a text index.
    pub default_language: Option<LitStr>,
}

/// The most a text index field may weigh (the server refuses more).
const MAX_WEIGHT: u64 = 99_999;

/// `(title = 10, "meta.summary" = 3)`.
fn parse_weights(input: ParseStream) -> syn::Result<Vec<(KeyName, u32, Span)>> {
    let mut weights = Vec::new();
    while !input.is_empty() {
        let name = parse_key_name(input)?;
        input.parse::<Token![=]>()?;
        let int: syn::LitInt = input.parse()?;
        let weight = int
            .base10_parse::<u64>()
            .ok()
            .filter(|w| (1..=MAX_WEIGHT).contains(w))
            .ok_or_else(|| {
                syn::Error::new(
                    int.span(),
                    format!("a text weight is an integer from 1 to {MAX_WEIGHT}"),
                )
            })?;
        weights.push((name, weight as u32, int.span()));
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(weights)
}

/// `index(keys(...), name = "...", unique, sparse, hidden, expire_after = N, partial(...))`.
pub(super) fn index(cx: &Ctxt, meta: &ParseNestedMeta, span: Span) -> Option<IndexAttr> {
    if !is_list(
        cx,
        meta,
        INDEX,
        span,
        "keys(field = asc, other = desc), unique",
    ) {
        return None;
    }
    let mut out = IndexAttr {
        span,
        keys: Vec::new(),
        name: None,
        unique: false,
        sparse: false,
        hidden: false,
        expire_after: None,
        partial: Vec::new(),
        collation: None,
        weights: Vec::new(),
        default_language: None,
    };
    let mut seen_keys = false;
    for_each_nested_key(cx, meta, |inner, name, kspan| match name {
        KEYS => {
            seen_keys = true;
            if let Some(keys) = in_parens(cx, inner, name, kspan, "field = asc", parse_index_keys) {
                if keys.is_empty() {
                    cx.error_at(kspan, "`keys()` is empty: name at least one field");
                }
                out.keys = keys;
            }
        }
        NAME => {
            if let Some(lit) = str_value(cx, inner, name, kspan, "\"by_author\"") {
                if lit.value().is_empty() {
                    cx.error_spanned_by(&lit, "the index name must not be empty");
                }
                out.name = Some(lit);
            }
        }
        UNIQUE => out.unique = flag(cx, inner, name, kspan),
        SPARSE => out.sparse = flag(cx, inner, name, kspan),
        HIDDEN => out.hidden = flag(cx, inner, name, kspan),
        EXPIRE_AFTER => {
            if let Some(secs) = int_value(cx, inner, name, kspan, 1, MAX_EXPIRE_AFTER) {
                out.expire_after = Some(secs);
            }
        }
        PARTIAL => {
            if let Some(conds) =
                in_parens(cx, inner, name, kspan, "status = \"active\"", parse_partial)
            {
                if conds.is_empty() {
                    cx.error_at(kspan, "`partial()` is empty");
                }
                out.partial = conds;
            }
        }
        COLLATION => out.collation = collation(cx, inner, kspan),
        WEIGHTS => {
            if let Some(weights) = in_parens(cx, inner, name, kspan, "title = 10", parse_weights) {
                if weights.is_empty() {
                    cx.error_at(kspan, "`weights()` is empty: `weights(title = 10)`");
                }
                out.weights = weights;
            }
        }
        DEFAULT_LANGUAGE => out.default_language = str_value(cx, inner, name, kspan, "\"english\""),
        _ => unknown_key(cx, INDEX, name, kspan, INDEX_KEYS),
    });
    if !seen_keys {
        cx.error_at(
            span,
            "`index` needs `keys(...)`: `index(keys(field = asc, other = desc))`",
        );
    }
    Some(out)
}
