//! The `Fields` struct of a document: one typed constant per stored field,
//! so `Post::FIELDS.author_id.name()` is the stored name `"authorId"`. The
//! constant of one field is made here for documents and sub-documents alike
//! (a sub-document's constants are `nested`'s).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use super::scope::{model_type, private};
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
    let mut has_path_type = false;
    // A bucket's items take no typed update (see `path::BucketItemsPath`).
    let bucket_items = input
        .attrs
        .bucket
        .as_ref()
        .and_then(|b| b.items.as_ref())
        .map(|i| i.unraw().to_string());
    for (index, field) in stored.iter().enumerate() {
        let Some(name) = &field.original.ident else {
            continue;
        };
        let stored_name = &field.stored;
        // A value with no fields of its own needs no path type (see
        // `path::Seg`): one type less for the compiler per field.
        let prefix = if bucket_items.as_deref() == Some(field.name.as_str()) {
            has_path_type = true;
            quote!(#p::BucketItemsPath<#p::Seg<#ident, #p::Root, #index>>)
        } else if crate::ty::holds_no_fields(field.ty) {
            quote!(())
        } else {
            has_path_type = true;
            quote!(#p::Seg<#ident, #p::Root, #index>)
        };
        let at = Place {
            model: quote!(#model),
            prefix,
            path: quote!(#stored_name),
        };
        let (field_ty, value) = constant(input, field, &at, &mut helpers);
        let doc = format!("`{}`, stored as `{}`.", field.name, field.stored);
        decls.push(quote! {
            #[doc = #doc]
            pub #name: #field_ty
        });
        values.push(quote!(#name: #value));
    }
    // The path types (`Seg`) are the only reader of the names.
    let field_names = has_path_type.then(|| {
        let names = stored.iter().map(|f| &f.stored);
        quote! {
            #[automatically_derived]
            impl #p::FieldNames for #ident {
                const NAMES: &'static [&'static ::core::primitive::str] = &[#(#names),*];
            }
        }
    });
    let doc = format!("The stored names of `{}`'s fields.", model.unraw());
    let definition = quote! {
        #[doc = #doc]
        #[allow(private_interfaces, unnameable_types, missing_docs)]
        pub struct #ident {
            #(#decls,)*
        }

        #field_names

        #(#helpers)*
    };
    let value = quote!(#ident { #(#values,)* });
    Fields {
        ident,
        definition,
        value,
    }
}

/// Where a field constant lives: its model type, its path type and the
/// expression of its stored path.
pub(super) struct Place {
    pub model: TokenStream,
    pub prefix: TokenStream,
    pub path: TokenStream,
}

/// The type and the value of one field constant; helper fns it points at
/// go to `helpers`.
pub(super) fn constant(
    input: &Input,
    field: &Field,
    at: &Place,
    helpers: &mut Vec<TokenStream>,
) -> (TokenStream, TokenStream) {
    let p = private(input);
    let ty = field.ty;
    let Place {
        model,
        prefix,
        path,
    } = at;
    if let Some(encrypt) = &field.encrypt {
        let algorithm = match encrypt.kind {
            crate::attr::EncryptKind::Deterministic => quote!(#p::Deterministic),
            crate::attr::EncryptKind::Random => quote!(#p::Random),
        };
        return (
            quote!(#p::EncryptedField<#model, #ty, #algorithm>),
            quote!(#p::EncryptedField::new(#path)),
        );
    }
    match &field.kind {
        // A custom serializer stores something the type does not describe:
        // no typed values, no paths below it.
        FieldKind::Plain | FieldKind::Embed(crate::attr::EmbedAttr { max: None, .. })
            if field.serde.custom_serializer =>
        {
            (
                quote!(#p::Field<#model, #ty, #p::CustomSerializer>),
                quote!(#p::Field::new(#path)),
            )
        }
        FieldKind::Plain | FieldKind::Embed(crate::attr::EmbedAttr { max: None, .. }) => (
            quote!(#p::Field<#model, #ty, #prefix>),
            quote!(#p::Field::new(#path)),
        ),
        FieldKind::Embed(embed) => {
            let max = embed.max.unwrap_or(1);
            let field_ty = quote!(#p::EmbedField<#model, #ty, #prefix>);
            let mut value = quote!(<#field_ty>::new(#path, #max));
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
            (field_ty, value)
        }
        FieldKind::Reference(reference) => {
            let target = match &reference.to {
                Some(to) => model_type(to, input),
                None => quote!(()),
            };
            let sort = reference_sort(&p, input, reference);
            (
                quote!(#p::RefField<#model, #ty, #target>),
                quote!(#p::RefField::new(#path, #sort)),
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
                quote!(#p::LinkField::new(#path, #max, #inverse)),
            )
        }
    }
}

/// `Some((stored sort key, direction))` of a reference's compound index, or `None`.
pub fn reference_sort(p: &Ident, input: &Input, reference: &RefAttr) -> TokenStream {
    match &reference.sort {
        Some(sort) => {
            let key = input.stored_key(&sort.name);
            let dir = direction(p, sort.dir);
            quote!(#p::Some((#key, #dir)))
        }
        None => quote!(#p::None),
    }
}

pub fn direction(p: &Ident, dir: Dir) -> TokenStream {
    match dir {
        Dir::Asc => quote!(#p::Direction::Asc),
        Dir::Desc => quote!(#p::Direction::Desc),
        // The kind goes in the index's `kind`; a sort is never of a kind.
        Dir::Hashed | Dir::Sphere2d | Dir::Text => quote!(#p::Direction::Asc),
    }
}
