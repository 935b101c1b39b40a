//! `#[derive(Embedded)]`: `impl BoundedAt` (with `Nesting`), `impl BsonSchema` and
//! `impl Embedded` for a sub-document (a struct or an enum). The schema
//! itself is built in `validator.rs`, one branch per enum variant.

use proc_macro2::TokenStream;
use quote::quote;

use super::bounded::{self, bounded_generics};
use super::scope::private;
use super::{copy, encrypted, nested, validator};
use crate::ast::{Data, Input};

pub fn expand(input: &Input) -> TokenStream {
    let p = private(input);
    let ident = input.ident;
    let generics = bounded_generics(input);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let (schema, optional) = schema(input);
    let checks = bounded::expand(input);
    let copy_checks = copy::checks(input);
    let bounded_impls = bounded::impls(input);
    let nested = nested::expand(input);
    let encrypted_checks = encrypted::checks(input);
    let encrypted_paths = encrypted::paths(input);
    quote! {
        #nested

        #encrypted_checks

        #checks

        #copy_checks

        #bounded_impls

        #[automatically_derived]
        impl #impl_generics #p::BsonSchema for #ident #ty_generics #where_clause {
            fn bson_schema() -> #p::bson::Document {
                #schema
            }

            fn optional() -> ::core::primitive::bool {
                #optional
            }

            #encrypted_paths
        }

        #[automatically_derived]
        impl #impl_generics #p::Embedded for #ident #ty_generics #where_clause {}
    }
}

/// The `bson_schema()` body and the `optional()` body.
fn schema(input: &Input) -> (TokenStream, TokenStream) {
    let p = private(input);
    let no = quote!(false);
    match &input.data {
        Data::Struct(fields) => {
            let stored: Vec<_> = fields.iter().filter(|f| f.is_stored()).collect();
            match (input.serde.transparent, stored.as_slice()) {
                // Stored as its one field.
                (Some(_), [only]) => delegate(input, only),
                _ => (validator::object(input, fields), no),
            }
        }
        Data::Tuple(fields) => match fields.as_slice() {
            // A newtype is stored as its field.
            [only] => delegate(input, only),
            _ => {
                let stored: Vec<_> = fields.iter().filter(|f| f.is_stored()).collect();
                (validator::tuple(input, &stored), no)
            }
        },
        Data::Unit => (
            quote! {{
                let mut schema = #p::bson::Document::new();
                schema.insert("bsonType", "null");
                schema
            }},
            no,
        ),
        Data::Enum(variants) => (validator::enumeration(input, variants), no),
    }
}

fn delegate(input: &Input, field: &crate::ast::Field) -> (TokenStream, TokenStream) {
    (
        validator::schema(input, field),
        validator::optional(input, field),
    )
}
