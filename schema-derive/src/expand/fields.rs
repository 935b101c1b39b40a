//! The `Fields` struct of a document: one typed constant per stored field,
//! so `Post::FIELDS.author_id.name()` is the stored name `"authorId"`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use super::{model_type, private};
use crate::ast::{Field, Input};
use crate::attr::{Dir, FieldKind, Keep, RefAttr};

pub struct Fields {
    /// `__PostFields`.
    pub ident: Ident,
    /// The struct, and the helper fns its constant points at.
    pub definition: TokenStream,
    /// The `FIELDS` constant's value.
    pub value: TokenStream,
}

pub fn expand(input: &Input) -> Fields {
    let p = private(input);
    let model = input.ident;
    let ident = format_ident!("__{}Fields", model.unraw());
    let stored: Vec<&Field> = input
        .struct_fields()
        .iter()
        .filter(|f| f.is_stored())
        .collect();
    let mut helpers = Vec::new();
    let mut decls = Vec::new();
    let mut values = Vec::new();
    for field in stored {
        let Some(name) = &field.original.ident else {
            continue;
        };
        let ty = field.ty;
        let stored_name = &field.stored;
        let doc = format!("`{}`, stored as `{}`.", field.name, field.stored);
        let (field_ty, value) = match &field.kind {
            FieldKind::Plain | FieldKind::Embed(crate::attr::EmbedAttr { max: None, .. }) => (
                quote!(#p::Field<#model, #ty>),
                quote!(#p::Field::new(#stored_name)),
            ),
            FieldKind::Embed(embed) => {
                let max = embed.max.unwrap_or(1);
                let mut value = quote!(#p::EmbedField::new(#stored_name, #max));
                if let Some(keep) = embed.keep {
                    let keep = match keep {
                        Keep::Newest => quote!(#p::Keep::Newest),
                        Keep::Oldest => quote!(#p::Keep::Oldest),
                    };
                    let history = match &embed.history {
                        Some(history) => {
                            let history = model_type(history, input);
                            let helper = format_ident!("__history_{}", field.name);
                            helpers.push(quote! {
                                fn #helper() -> &'static ::core::primitive::str {
                                    <#history as #p::Document>::COLLECTION
                                }
                            });
                            quote!(#p::Some(#helper as fn() -> &'static ::core::primitive::str))
                        }
                        None => quote!(#p::None),
                    };
                    value = quote!(#value.with_subset(#keep, #history));
                }
                (quote!(#p::EmbedField<#model, #ty>), value)
            }
            FieldKind::Reference(reference) => {
                let target = match &reference.to {
                    Some(to) => model_type(to, input),
                    None => quote!(()),
                };
                let sort = reference_sort(&p, input, reference);
                (
                    quote!(#p::RefField<#model, #ty, #target>),
                    quote!(#p::RefField::new(#stored_name, #sort)),
                )
            }
            FieldKind::ManyToMany(link) => {
                let target = match &link.to {
                    Some(to) => model_type(to, input),
                    None => quote!(()),
                };
                let max = match link.max {
                    Some(max) => quote!(#max),
                    None => quote!(#p::DEFAULT_LINK_MAX),
                };
                let inverse = match (&link.inverse, link.two_sided) {
                    (Some(inverse), true) => {
                        let helper = format_ident!("__inverse_{}", field.name);
                        helpers.push(quote! {
                            fn #helper() -> &'static ::core::primitive::str {
                                <#target as #p::Document>::FIELDS.#inverse.name()
                            }
                        });
                        quote!(#p::Some(#helper as fn() -> &'static ::core::primitive::str))
                    }
                    _ => quote!(#p::None),
                };
                (
                    quote!(#p::LinkField<#model, #ty, #target>),
                    quote!(#p::LinkField::new(#stored_name, #max, #inverse)),
                )
            }
        };
        decls.push(quote! {
            #[doc = #doc]
            pub #name: #field_ty
        });
        values.push(quote!(#name: #value));
    }
    let doc = format!("The stored names of `{}`'s fields.", model.unraw());
    let definition = quote! {
        #[doc = #doc]
        #[allow(private_interfaces, unnameable_types, missing_docs)]
        pub struct #ident {
            #(#decls,)*
        }

        #(#helpers)*
    };
    let value = quote!(#ident { #(#values,)* });
    Fields {
        ident,
        definition,
        value,
    }
}

/// `Some((stored sort key, direction))` of a reference's compound index, or `None`.
pub fn reference_sort(p: &TokenStream, input: &Input, reference: &RefAttr) -> TokenStream {
    match &reference.sort {
        Some(sort) => {
            let key = input.stored_key(&sort.name);
            let dir = direction(p, sort.dir);
            quote!(#p::Some((#key, #dir)))
        }
        None => quote!(#p::None),
    }
}

pub fn direction(p: &TokenStream, dir: Dir) -> TokenStream {
    match dir {
        Dir::Asc => quote!(#p::Direction::Asc),
        Dir::Desc => quote!(#p::Direction::Desc),
    }
}
