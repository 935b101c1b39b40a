//! `impl Document for T`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

use super::{bounded, fields, indexes, private, relations, validator};
use crate::ast::Input;

pub fn expand(input: &Input) -> TokenStream {
    let p = private(input);
    let ident = input.ident;
    let name = ident.unraw().to_string();
    let collection = input
        .attrs
        .collection
        .as_ref()
        .map(|lit| lit.value())
        .unwrap_or_default();
    // check.rs guarantees an `_id` field before the real expansion runs.
    let Some(id) = input.id_field() else {
        return TokenStream::new();
    };
    let id_ty = id.ty;
    let id_member = &id.member;
    let fields = fields::expand(input);
    let fields_ident = &fields.ident;
    let fields_def = &fields.definition;
    let fields_value = &fields.value;
    let indexes = indexes::expand(input);
    let relations = relations::expand(input);
    let schema = validator::object(input, input.struct_fields());
    let checks = bounded::expand(input);

    quote! {
        #checks

        #fields_def

        #[automatically_derived]
        impl #p::Document for #ident {
            type Id = #id_ty;
            type Fields = #fields_ident;
            const FIELDS: #fields_ident = #fields_value;
            const COLLECTION: &'static ::core::primitive::str = #collection;
            const NAME: &'static ::core::primitive::str = #name;

            fn id(&self) -> &#id_ty {
                &self.#id_member
            }

            fn indexes() -> #p::Vec<#p::IndexSpec> {
                #indexes
            }

            fn relations() -> #p::Vec<#p::Relation> {
                #relations
            }

            fn json_schema() -> #p::bson::Document {
                #schema
            }
        }
    }
}
