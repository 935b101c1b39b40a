//! What is emitted next to the errors: impls with dummy bodies, so that code
//! using the model does not fail with a cascade of "trait not implemented"
//! errors on top of the real ones, and the trait-bound assertions of the
//! fields with no reported mistake, so that the mistakes only the compiler
//! can see (an unbounded type behind an alias, a reference of the wrong id
//! type) come out in the same build as the others.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

use super::scope::private;
use super::{bounded, document, fields};
use crate::ast::{Data, Derive, Input};

pub fn expand(input: &Input) -> TokenStream {
    match input.derive {
        Derive::Document => document(input),
        Derive::Embedded => embedded_impls(input),
    }
}

fn document(input: &Input) -> TokenStream {
    // A generic document is rejected outright; there is no one type to implement.
    if !input.original.generics.params.is_empty()
        || matches!(input.original.data, syn::Data::Union(_))
    {
        return TokenStream::new();
    }
    let p = private(input);
    let ident = input.ident;
    let name = ident.unraw().to_string();
    let collection = input
        .attrs
        .collection
        .as_ref()
        .map(|lit| lit.value())
        .unwrap_or_default();
    let (fields_def, fields_ty, fields_value) = match &input.data {
        Data::Struct(_) => {
            let fields = fields::expand(input);
            let ident = fields.ident;
            (fields.definition, quote!(#ident), fields.value)
        }
        _ => (TokenStream::new(), quote!(()), quote!(())),
    };
    let checks = bounded::expand(input);
    let serde_bound = document::serde_bound(input);
    let updatable = super::timeseries::updatable(input);
    let (id_ty, id_body) = match input.id_field() {
        Some(id) => {
            let ty = id.ty;
            let member = &id.member;
            (quote!(#ty), quote!(&self.#member))
        }
        None => (quote!(()), quote!(&())),
    };
    quote! {
        #checks

        #fields_def

        #[automatically_derived]
        impl #p::Document for #ident #serde_bound {
            type Id = #id_ty;
            type Fields = #fields_ty;
            const FIELDS: #fields_ty = #fields_value;
            const COLLECTION: &'static ::core::primitive::str = #collection;
            const NAME: &'static ::core::primitive::str = #name;

            fn id(&self) -> &#id_ty {
                #id_body
            }
        }

        #updatable
    }
}

fn embedded_impls(input: &Input) -> TokenStream {
    if matches!(input.original.data, syn::Data::Union(_)) {
        return TokenStream::new();
    }
    let p = private(input);
    let ident = input.ident;
    let generics = bounded::bounded_generics(input);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let checks = bounded::expand(input);
    let bounded_impls = bounded::fallback_impls(input);
    quote! {
        #checks

        #bounded_impls

        #[automatically_derived]
        impl #impl_generics #p::BsonSchema for #ident #ty_generics #where_clause {
            fn bson_schema() -> #p::bson::Document {
                #p::bson::Document::new()
            }
        }

        #[automatically_derived]
        impl #impl_generics #p::Embedded for #ident #ty_generics #where_clause {}
    }
}
