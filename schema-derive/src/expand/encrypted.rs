//! What `#[encrypt(...)]` generates: the document's table of its own
//! encrypted fields (each with its data key's name), the function that
//! gathers those inside its sub-documents (a sub-document type's
//! `encrypted_paths`, the document's `nested_encrypted`), and the checks
//! the compiler makes (the `encryption` feature is on; a deterministic
//! field's type has one BSON form).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::scope::{private, private_at};
use crate::ast::{Field, Input};
use crate::attr::{EncryptKind, FieldKind};

/// The stored fields of the struct that `#[encrypt]` declares.
fn encrypted<'a, 'b>(input: &'b Input<'a>) -> impl Iterator<Item = &'b Field<'a>> {
    input
        .struct_fields()
        .iter()
        .filter(|f| f.is_stored() && f.encrypt.is_some())
}

/// An encrypted array's or map's `#[embed(max = N)]`: `Some(N)`, else
/// `None` (as tokens).
fn bound(field: &Field) -> TokenStream {
    match &field.kind {
        FieldKind::Embed(embed) => match embed.max {
            Some(max) => quote!(::core::option::Option::Some(#max)),
            None => quote!(::core::option::Option::None),
        },
        _ => quote!(::core::option::Option::None),
    }
}

fn algorithm(input: &Input, kind: EncryptKind) -> TokenStream {
    let p = private(input);
    match kind {
        EncryptKind::Deterministic => quote!(#p::Algorithm::Deterministic),
        EncryptKind::Random => quote!(#p::Algorithm::Random),
    }
}

/// `&[EncryptedDef { .. }, ..]`: a document's own encrypted fields, each
/// under the key `"<collection>.<stored name>"`.
pub fn table(input: &Input, collection: &str) -> TokenStream {
    let p = private(input);
    let rows = encrypted(input).filter_map(|field| {
        let kind = field.encrypt.as_ref()?.kind;
        let (name, path) = (&field.name, &field.stored);
        let key = format!("{collection}.{path}");
        let algorithm = algorithm(input, kind);
        let max = bound(field);
        Some(quote! {
            #p::EncryptedDef { field: #name, path: #path, key: #key, algorithm: #algorithm, max: #max }
        })
    });
    quote!(&[#(#rows),*])
}

/// The checks of the encrypted fields: the `encryption` feature is on (an
/// error on the first `#[encrypt]` otherwise), and each deterministic
/// field's type has one BSON form.
pub fn checks(input: &Input) -> TokenStream {
    let mut out = TokenStream::new();
    for field in encrypted(input) {
        let Some(encrypt) = &field.encrypt else {
            continue;
        };
        if out.is_empty() {
            let at = private_at(input, encrypt.span);
            out = quote_spanned! {encrypt.span=>
                const _: () = #at::assert_feature::<#at::FeatureProbe>();
            };
        }
        if encrypt.kind == EncryptKind::Deterministic {
            let ty = field.ty;
            let at = private_at(input, ty.span());
            out.extend(quote_spanned! {ty.span()=>
                const _: () = #at::assert_deterministic::<#ty>();
            });
        }
    }
    out
}

/// `fn #name() -> Vec<EncryptedPath>`: the encrypted fields below the
/// struct's fields that may hold sub-documents (not those encrypted whole),
/// plus, with `own`, the struct's own (a sub-document type's); nothing when
/// no field may hold any.
fn paths_fn(input: &Input, name: TokenStream, own: bool) -> TokenStream {
    let p = private(input);
    let mut pushes = Vec::new();
    for field in input.struct_fields().iter().filter(|f| f.is_stored()) {
        let path = &field.stored;
        match &field.encrypt {
            Some(encrypt) if own => {
                let algorithm = algorithm(input, encrypt.kind);
                let max = bound(field);
                pushes.push(quote!(out.push(#p::EncryptedPath::new(#path, #algorithm, #max));));
            }
            Some(_) => {}
            None if super::validator::described(field) && !crate::ty::holds_no_fields(field.ty) => {
                // Through the probe: a type that forgot `#[derive(Embedded)]`
                // is reported once, by the validator and the bounds.
                let ty = field.ty;
                pushes.push(quote! {
                    #p::nest(&mut out, #path, {
                        #[allow(unused_imports)]
                        use #p::{Described as _, Undescribed as _};
                        (&#p::SchemaProbe::<#ty>::NEW).encrypted_or_none()
                    });
                });
            }
            None => {}
        }
    }
    if pushes.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn #name() -> #p::Vec<#p::EncryptedPath> {
            let mut out = #p::Vec::new();
            #(#pushes)*
            out
        }
    }
}

/// A document's `nested_encrypted`: the encrypted fields inside its
/// sub-documents.
pub fn nested(input: &Input, name: TokenStream) -> TokenStream {
    paths_fn(input, name, false)
}

/// A sub-document type's `encrypted_paths`: its own encrypted fields and
/// those inside its sub-documents.
pub fn paths(input: &Input) -> TokenStream {
    paths_fn(input, quote!(encrypted_paths), true)
}
