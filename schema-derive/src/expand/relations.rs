//! The `relations` table read by `Document::relations()`: one entry per `#[embed(max = N)]`,
//! `#[reference]` and `#[many_to_many]` field, in field order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::fields::reference_sort;
use super::scope::{model_type, private};
use crate::ast::Input;
use crate::attr::{FieldKind, OnDelete};

pub fn expand(input: &Input) -> TokenStream {
    let p = private(input);
    let relations = input
        .struct_fields()
        .iter()
        .filter(|f| f.is_stored())
        .filter_map(|field| {
            let name = &field.name;
            let stored = &field.stored;
            match &field.kind {
                FieldKind::Plain => None,
                FieldKind::Embed(embed) => {
                    let max = embed.max?;
                    Some(quote! {
                        #p::Relation::Embed { field: #name, stored: #stored, max: #max }
                    })
                }
                FieldKind::Reference(reference) => {
                    let target = match &reference.to {
                        Some(to) => {
                            let to = model_type(to, input);
                            quote!(#p::Some(<#to as #p::Document>::COLLECTION))
                        }
                        None => quote!(#p::None),
                    };
                    let sort = reference_sort(&p, input, reference);
                    let on_delete = match reference.on_delete {
                        Some((policy, _)) => {
                            let policy = match policy {
                                OnDelete::Restrict => quote!(Restrict),
                                OnDelete::Cascade => quote!(Cascade),
                                OnDelete::SetNull => quote!(SetNull),
                                OnDelete::Unset => quote!(Unset),
                            };
                            quote!(#p::Some(#p::OnDelete::#policy))
                        }
                        None => quote!(#p::None),
                    };
                    Some(quote! {
                        #p::Relation::Reference {
                            field: #name,
                            stored: #stored,
                            target: #target,
                            sort: #sort,
                            on_delete: #on_delete,
                        }
                    })
                }
                FieldKind::ManyToMany(link) => {
                    let to = model_type(link.to.as_ref()?, input);
                    let max = match link.max {
                        Some(max) => quote!(#max),
                        None => quote!(#p::DEFAULT_LINK_MAX),
                    };
                    let inverse = match (&link.inverse, link.two_sided) {
                        (Some(inverse), true) => {
                            quote!(#p::Some(<#to as #p::Document>::FIELDS.#inverse.name()))
                        }
                        _ => quote!(#p::None),
                    };
                    Some(quote! {
                        #p::Relation::ManyToMany {
                            field: #name,
                            stored: #stored,
                            target: <#to as #p::Document>::COLLECTION,
                            stamp: #p::Stamp::of::<#to>(),
                            inverse: #inverse,
                            max: #max,
                        }
                    })
                }
            }
        });
    quote!(&[#(#relations),*])
}

/// The model's delete policies registered at link time, one entry per
/// reference with `on_delete` and a `to` type, so that deleting a document
/// of that type runs them (`schema_core::Dependent`).
pub fn dependents(input: &Input) -> TokenStream {
    let p = private(input);
    let ident = input.ident;
    let entries = input
        .struct_fields()
        .iter()
        .filter(|f| f.is_stored())
        .filter_map(|field| match &field.kind {
            FieldKind::Reference(reference) if reference.on_delete.is_some() => {
                reference.to.as_ref().map(|to| model_type(to, input))
            }
            _ => None,
        })
        .enumerate()
        .map(|(i, to)| {
            let name = format_ident!("__SCHEMA_CORE_DEPENDENT_{}", i);
            quote! {
                #[#p::linkme::distributed_slice(#p::DEPENDENTS)]
                #[linkme(crate = #p::linkme)]
                static #name: #p::Dependent = #p::Dependent::of::<#ident, #to>();
            }
        });
    quote!(#(#entries)*)
}
