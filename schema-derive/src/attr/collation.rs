//! `collation(locale = "en", strength = 2)` in `index(...)`: the index's
//! collation (a case-insensitive unique email, say).

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;

use super::keywords::{COLLATION, COLLATION_KEYS, LOCALE, STRENGTH};
use super::list::{for_each_nested_key, unknown_key};
use super::value::{int_value, is_list, str_value};
use crate::ctxt::Ctxt;

/// The strengths ICU knows: 1 (base letters) to 5 (identical).
const MAX_STRENGTH: u64 = 5;

/// An index's collation as written.
pub struct CollationAttr {
    pub locale: String,
    pub strength: Option<u32>,
}

/// `collation(locale = "...", strength = N)`; `None` (with every mistake
/// reported) when it is not a list or names no locale.
pub(super) fn collation(cx: &Ctxt, meta: &ParseNestedMeta, span: Span) -> Option<CollationAttr> {
    if !is_list(cx, meta, COLLATION, span, "locale = \"en\", strength = 2") {
        return None;
    }
    let mut locale = None;
    let mut strength = None;
    for_each_nested_key(cx, meta, |inner, name, kspan| match name {
        LOCALE => {
            if let Some(lit) = str_value(cx, inner, name, kspan, "\"en\"") {
                if lit.value().trim().is_empty() {
                    cx.error_spanned_by(&lit, "the collation's `locale` must not be empty");
                } else {
                    locale = Some(lit.value());
                }
            }
        }
        STRENGTH => {
            if let Some((n, _)) = int_value(cx, inner, name, kspan, 1, MAX_STRENGTH) {
                strength = u32::try_from(n).ok();
            }
        }
        _ => unknown_key(cx, COLLATION, name, kspan, COLLATION_KEYS),
    });
    if locale.is_none() {
        cx.error_at(
            span,
            "`collation` needs a `locale`: `collation(locale = \"en\", strength = 2)`",
        );
    }
    Some(CollationAttr {
        locale: locale?,
        strength,
    })
}
