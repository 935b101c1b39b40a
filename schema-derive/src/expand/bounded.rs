//! The compile-time rule, as trait bounds spanned on each field's type:
//! a plain field must be `Bounded`; an `#[embed(max = N)]` or many-to-many
//! field must be a `BoundedCollection` of `Bounded` items; a two-sided link's
//! inverse must be a link back to this model.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{model_type, private_at};
use crate::ast::{Derive, Input};
use crate::attr::FieldKind;

/// A never-called fn whose body holds the assertions; type checking it is
/// what enforces them.
pub fn expand(input: &Input) -> TokenStream {
    let ident = input.ident;
    let mut asserts = Vec::new();
    for field in input.all_fields() {
        // A field with a reported mistake: its assertion would say it again.
        if !field.is_stored() || field.is_flagged() {
            continue;
        }
        let ty = field.ty;
        let p = private_at(input, ty.span());
        match &field.kind {
            FieldKind::Plain | FieldKind::Reference(_) => {
                // A custom serializer's Rust type is not what is stored (and is
                // often a foreign type that cannot implement `Bounded`); the
                // syntactic check in check.rs still applies to it.
                if !field.serde.custom_serializer {
                    asserts.push(quote_spanned!(ty.span()=> #p::assert_bounded::<#ty>();));
                }
            }
            FieldKind::Embed(embed) => {
                if embed.max.is_some() {
                    asserts.push(quote_spanned!(ty.span()=> #p::assert_bounded_items::<#ty>();));
                }
            }
            FieldKind::ManyToMany(link) => {
                asserts.push(quote_spanned!(ty.span()=> #p::assert_bounded_items::<#ty>();));
                if let (Some(inverse), Some(to), true, Derive::Document) =
                    (&link.inverse, &link.to, link.two_sided, input.derive)
                {
                    let to = model_type(to, input);
                    let p = private_at(input, inverse.span());
                    asserts.push(quote_spanned! {inverse.span()=>
                        let _: &#p::LinkField<#to, _, #ident> =
                            &<#to as #p::Document>::FIELDS.#inverse;
                    });
                }
            }
        }
    }
    let generics = super::embedded::bounded_generics(input);
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    quote! {
        #[allow(dead_code, unused_variables, clippy::all)]
        fn __schema_rules #impl_generics () #where_clause {
            #(#asserts)*
        }
    }
}
