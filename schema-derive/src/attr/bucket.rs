//! `bucket(parent = .., items = .., count = .., seq = ..)` in
//! `#[document(...)]`: which fields of a bucket model play which role.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::Ident;

use super::keywords::{BUCKET, BUCKET_KEYS, COUNT, ITEMS, PARENT, SEQ};
use super::list::{for_each_nested_key, unknown_key};
use super::value::{is_list, value};
use crate::ctxt::Ctxt;

/// `bucket(...)`: the Rust names of the fields that hold the parent's id,
/// the items (an `#[embed(max = N)]` array), their count and the bucket's
/// place among its parent's.
pub struct BucketAttr {
    /// The `bucket` keyword, where errors about the whole declaration point.
    pub span: Span,
    pub parent: Option<Ident>,
    pub items: Option<Ident>,
    pub count: Option<Ident>,
    pub seq: Option<Ident>,
}

impl BucketAttr {
    /// Each role with the field named for it (`None` when not given).
    pub fn roles(&self) -> [(&'static str, Option<&Ident>); 4] {
        [
            (PARENT, self.parent.as_ref()),
            (ITEMS, self.items.as_ref()),
            (COUNT, self.count.as_ref()),
            (SEQ, self.seq.as_ref()),
        ]
    }
}

/// Parses `bucket(...)`; every role must be named (each missing one is
/// reported on `bucket`).
pub(super) fn bucket(cx: &Ctxt, meta: &ParseNestedMeta, span: Span) -> Option<BucketAttr> {
    if !is_list(
        cx,
        meta,
        BUCKET,
        span,
        "parent = room_id, items = messages, count = count, seq = seq",
    ) {
        return None;
    }
    let mut out = BucketAttr {
        span,
        parent: None,
        items: None,
        count: None,
        seq: None,
    };
    for_each_nested_key(cx, meta, |inner, name, kspan| {
        let slot = match name {
            PARENT => &mut out.parent,
            ITEMS => &mut out.items,
            COUNT => &mut out.count,
            SEQ => &mut out.seq,
            _ => return unknown_key(cx, "document(bucket)", name, kspan, BUCKET_KEYS),
        };
        let Some(input) = value(cx, inner, name, kspan, "field_name") else {
            return;
        };
        match input.call(Ident::parse_any) {
            Ok(ident) => *slot = Some(ident),
            Err(_) => cx.error_at(
                kspan,
                format!("`{name}` names a field: `{name} = field_name`"),
            ),
        }
    });
    for (role, field) in out.roles() {
        if field.is_none() {
            cx.error_at(
                span,
                format!(
                    "`bucket` needs `{role} = <field>`: it names the field that holds {}",
                    describe(role)
                ),
            );
        }
    }
    Some(out)
}

/// What the field of `role` holds, for messages.
pub fn describe(role: &str) -> &'static str {
    match role {
        PARENT => "the parent's id",
        ITEMS => "the items (an `#[embed(max = N)]` array)",
        COUNT => "the number of items (an integer)",
        _ => "the bucket's place among its parent's buckets (an integer: 0, 1, 2, ...)",
    }
}
