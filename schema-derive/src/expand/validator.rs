//! The `$jsonSchema` of a struct: one property per stored field, from the
//! field type's `BsonSchema`, with `maxItems` from `#[embed(max = N)]` and
//! `#[many_to_many(max = N)]`, and `required` for fields always written.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{private, private_at};
use crate::ast::{Field, Input};
use crate::attr::FieldKind;
use crate::ty;

/// `object_schema(vec![Property { .. }, ..])` over the stored fields.
pub fn object(input: &Input, fields: &[Field]) -> TokenStream {
    let p = private(input);
    let properties = fields.iter().filter(|f| f.is_stored()).map(|field| {
        let name = &field.stored;
        let schema = schema(input, field);
        let required = required(input, field);
        quote! {
            #p::Property {
                name: #name,
                schema: #schema,
                required: #required,
            }
        }
    });
    quote!(#p::object_schema(#p::vec![#(#properties),*]))
}

/// The schema of one field.
pub fn schema(input: &Input, field: &Field) -> TokenStream {
    let p = private(input);
    let ty = field.ty;
    // A custom serializer stores something other than the Rust type says.
    if field.serde.custom_serializer {
        return quote!(#p::bson::Document::new());
    }
    let at = private_at(input, ty.span());
    let base = quote_spanned!(ty.span()=> <#ty as #at::BsonSchema>::bson_schema());
    match &field.kind {
        FieldKind::Embed(embed) => match embed.max {
            Some(max) => quote!(#p::with_max_items(#base, #max)),
            None => base,
        },
        FieldKind::ManyToMany(link) => {
            let max = match link.max {
                Some(max) => quote!(#max),
                None => quote!(#p::DEFAULT_LINK_MAX),
            };
            quote!(#p::with_max_items(#base, #max))
        }
        FieldKind::Plain | FieldKind::Reference(_) => base,
    }
}

/// Whether every stored document holds the field: not when serde may leave
/// it out (`default`, `skip_serializing_if`) or the type allows absence
/// (`Option`).
pub fn required(input: &Input, field: &Field) -> TokenStream {
    let ty = field.ty;
    if input.serde.default || field.serde.may_be_missing {
        quote!(false)
    } else if field.serde.custom_serializer {
        let required = !ty::is_option(ty);
        quote!(#required)
    } else {
        let at = private_at(input, ty.span());
        quote_spanned!(ty.span()=> !<#ty as #at::BsonSchema>::optional())
    }
}
