//! `shard_key(room_id, n)` (ranged) or `shard_key(hashed(id))` in
//! `#[document(...)]`: how the model's collection is sharded. The rules that
//! look at the fields and the indexes are `check::shard`'s.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Ident, Token};

use super::keywords::{HASHED, SHARD_KEY};
use super::value::{in_parens, parens};
use crate::ctxt::Ctxt;

/// One field of a shard key as written.
pub struct ShardField {
    pub ident: Ident,
    /// `hashed(field)`, with the span of `hashed`.
    pub hashed: Option<Span>,
}

impl ShardField {
    /// The Rust name.
    pub fn name(&self) -> String {
        self.ident.unraw().to_string()
    }
}

/// `shard_key(...)`.
pub struct ShardKeyAttr {
    /// The `shard_key` keyword.
    pub span: Span,
    pub fields: Vec<ShardField>,
}

impl ShardKeyAttr {
    /// The span of the first `hashed`, when the key is hashed.
    pub fn hashed(&self) -> Option<Span> {
        self.fields.iter().find_map(|f| f.hashed)
    }
}

/// `field` or `hashed(field)`, comma-separated.
fn parse_fields(input: ParseStream) -> syn::Result<Vec<ShardField>> {
    let mut fields = Vec::new();
    while !input.is_empty() {
        let ident = input.call(Ident::parse_any)?;
        let field = if ident == HASHED && input.peek(syn::token::Paren) {
            let content = parens(input)?;
            let inner = content.call(Ident::parse_any)?;
            if !content.is_empty() {
                return Err(content.error("`hashed(...)` takes one field: `hashed(id)`"));
            }
            ShardField {
                ident: inner,
                hashed: Some(ident.span()),
            }
        } else {
            ShardField {
                ident,
                hashed: None,
            }
        };
        fields.push(field);
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(fields)
}

/// Parses `shard_key(...)`.
pub(super) fn shard_key(cx: &Ctxt, meta: &ParseNestedMeta, span: Span) -> Option<ShardKeyAttr> {
    let fields = in_parens(cx, meta, SHARD_KEY, span, "room_id, n", parse_fields)?;
    if fields.is_empty() {
        cx.error_at(
            span,
            "`shard_key()` is empty: name its fields, `shard_key(room_id, n)`, or one hashed field, `shard_key(hashed(id))`",
        );
        return None;
    }
    Some(ShardKeyAttr { span, fields })
}
