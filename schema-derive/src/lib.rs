//! Derive macros for `schema-core`: `#[derive(Document)]` for a root document
//! stored in its own collection and `#[derive(Embedded)]` for a sub-document
//! stored inside one. Use them through `schema_core`, which re-exports them.
//!
//! Each derive runs parse ([`ast`], [`attr`], [`serde`]) -> check ([`check`])
//! -> expand ([`expand`]). Every mistake found by parse and check is reported
//! at once; the expansion then falls back to impls with dummy bodies so that
//! the user does not also see a cascade of "trait not implemented" errors.

mod ast;
mod attr;
mod check;
mod ctxt;
mod expand;
mod serde;
mod suggest;
mod ty;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

use crate::ast::Derive;

/// Derives `schema_core::Document` for a root document.
///
/// See the `schema_core` crate for the attributes: `#[document(collection =
/// "...", index(...))]` on the struct; `#[embed(max = N)]`,
/// `#[reference(index)]` and `#[many_to_many(...)]` on fields.
#[proc_macro_derive(Document, attributes(document, embed, reference, many_to_many))]
pub fn derive_document(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, Derive::Document).into()
}

/// Derives `schema_core::Embedded` (with `Bounded` and `BsonSchema`) for a
/// sub-document: a struct or enum stored inside a document.
#[proc_macro_derive(Embedded, attributes(document, embed, reference, many_to_many))]
pub fn derive_embedded(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, Derive::Embedded).into()
}
