//! `impl Document for T`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

use super::scope::private;
use super::{
    bounded, bucket, copy, encrypted, fields, indexes, relations, shard, timeseries, validator,
    versions,
};
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
    let checks = bounded::expand(input);
    // check.rs guarantees an `_id` field before the real expansion runs,
    // unless serde rejects an attribute (then serde's error stands alone).
    let Some(id) = input.id_field() else {
        return checks;
    };
    let id_ty = id.ty;
    let id_member = &id.member;
    let fields = fields::expand(input);
    let fields_ident = &fields.ident;
    let fields_def = &fields.definition;
    let fields_value = &fields.value;
    let indexes = indexes::expand(input);
    let relations = relations::expand(input);
    let dependents = relations::dependents(input);
    let properties = validator::properties(input, input.struct_fields());
    let closed = input.attrs.open.is_none();
    let encrypted_table = encrypted::table(input, &collection);
    let feature = encrypted::checks(input);
    let nested_encrypted = encrypted::nested(input, quote!(nested_encrypted));
    let serde_bound = serde_bound(input);
    let stamps = crate::stamp::items(input, &p);
    let bucket = bucket::expand(input);
    let series = timeseries::spec(input);
    let shard_key = shard::spec(input);
    let versions = versions::spec(input);
    let version_checks = versions::checks(input);
    let updatable = timeseries::updatable(input);
    let copy_checks = copy::checks(input);
    let pre_images = match input.attrs.pre_images {
        Some(_) => quote! { const PRE_IMAGES: ::core::primitive::bool = true; },
        None => TokenStream::new(),
    };
    let copies = if input.struct_fields().iter().any(|f| f.copy.is_some()) {
        let specs = copy::specs(input);
        quote! {
            fn copies() -> #p::Vec<#p::CopySpec> {
                #specs
            }
        }
    } else {
        TokenStream::new()
    };

    quote! {
        #feature

        #checks

        #copy_checks

        #dependents

        #fields_def

        #[automatically_derived]
        impl #p::Document for #ident #serde_bound {
            type Id = #id_ty;
            type Fields = #fields_ident;
            const FIELDS: #fields_ident = #fields_value;
            const COLLECTION: &'static ::core::primitive::str = #collection;
            const NAME: &'static ::core::primitive::str = #name;

            fn id(&self) -> &#id_ty {
                &self.#id_member
            }

            const TABLES: #p::Tables = #p::Tables {
                indexes: #indexes,
                relations: #relations,
                properties: #properties,
                closed: #closed,
                encrypted: #encrypted_table,
            };

            #stamps

            #copies

            #series

            #shard_key

            #versions

            #pre_images

            #nested_encrypted
        }

        #version_checks

        #bucket

        #updatable
    }
}

/// When serde rejects one of the input's serde attributes it derives no
/// `Serialize`/`Deserialize`, and an `impl Document` (whose supertraits they
/// are) would add two errors to serde's one. The impl then holds only where
/// they exist: a bound with a higher-ranked lifetime is not checked where the
/// impl is written. Nothing changes when the serde impls do exist.
pub fn serde_bound(input: &Input) -> TokenStream {
    if !input.serde_typo {
        return TokenStream::new();
    }
    let p = private(input);
    let ident = input.ident;
    quote! {
        where for<'__de> #ident: #p::serde::Serialize + #p::serde::Deserialize<'__de>
    }
}
