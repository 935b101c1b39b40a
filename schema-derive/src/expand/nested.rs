//! The field constants of a sub-document below any path, which a parent's
//! constant dereferences to (`User::FIELDS.profile.city`): the
//! `NestedFields`, `Nested` and `FieldNames` impls of a struct with named
//! fields and of a tagged enum, one constant per field as in [`super::fields`].

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::ext::IdentExt;

use super::fields::{constant, Place};
use super::scope::private;
use crate::ast::{Data, Field, Input, Style, Variant};

/// `#[derive(Embedded)]` on a struct with named fields: the field
/// constants of the sub-document below any path (`__ProfileFields<M, P>`),
/// what `User::FIELDS.profile` dereferences to. Nothing for other shapes,
/// and for a type with lifetime parameters.
pub fn expand(input: &Input) -> TokenStream {
    let fields = match &input.data {
        Data::Struct(fields) => fields,
        Data::Enum(variants) => return nested_enum(input, variants),
        _ => return TokenStream::new(),
    };
    let generics = &input.original.generics;
    if generics.lifetimes().next().is_some() || input.serde.transparent.is_some() {
        return TokenStream::new();
    }
    let p = private(input);
    let model = input.ident;
    let ident = format_ident!("__{}Fields", model.unraw());
    let (_, ty_generics, _) = generics.split_for_impl();
    let this = quote!(#model #ty_generics);
    let stored: Vec<&Field> = fields.iter().filter(|f| f.is_stored()).collect();
    let mut helpers = Vec::new();
    let mut decls = Vec::new();
    let mut values = Vec::new();
    for (index, field) in stored.iter().enumerate() {
        let Some(name) = &field.original.ident else {
            continue;
        };
        let prefix = quote!(#p::Seg<#this, __P, #index>);
        let at = Place {
            model: quote!(__M),
            path: quote!(<#prefix as #p::Prefix>::PATH),
            prefix,
        };
        let (field_ty, value) = constant(input, field, &at, &mut helpers);
        decls.push(quote!(pub #name: #field_ty));
        values.push(quote!(#name: #value));
    }
    let names = stored.iter().map(|f| &f.stored);
    let keys = stored.iter().map(|f| {
        let (name, stored) = (&f.name, &f.stored);
        quote!((#name, #stored))
    });
    let listed: Vec<String> = stored.iter().map(|f| format!("`{}`", f.name)).collect();
    let describe = format!(
        "no field by this name in `{}`: name one of its fields by its Rust name: {}",
        model.unraw(),
        listed.join(", ")
    );
    let names: Vec<TokenStream> = names.map(|n| quote!(#n)).collect();
    let fields_type = FieldsType {
        ident,
        this,
        decls,
        values,
        marker: true,
        keys: keys.collect(),
        describe,
        names,
    };
    let common = fields_type.expand(&p, generics);
    quote! {
        #common

        #(#helpers)*
    }
}

/// The field constants' type of a sub-document (a struct's, or a tagged
/// enum's paths): its declaration and its `NestedFields`, `Nested` and
/// `FieldNames` impls, the same for both.
struct FieldsType {
    /// `__ProfileFields`.
    ident: Ident,
    /// The sub-document's type with its generic arguments.
    this: TokenStream,
    /// The constants' declarations and values.
    decls: Vec<TokenStream>,
    values: Vec<TokenStream>,
    /// Whether the type holds a marker of its parameters (when no constant
    /// names them).
    marker: bool,
    /// `(Rust name, stored name)` pairs, and the message of a key naming
    /// none of them.
    keys: Vec<TokenStream>,
    describe: String,
    /// The stored names.
    names: Vec<TokenStream>,
}

impl FieldsType {
    fn expand(&self, p: &Ident, generics: &syn::Generics) -> TokenStream {
        let FieldsType {
            ident,
            this,
            decls,
            values,
            marker,
            keys,
            describe,
            names,
        } = self;
        let with_static = with_static(generics);
        let params: Vec<_> = with_static.params.iter().collect();
        let where_clause = &with_static.where_clause;
        let (impl_generics, _, _) = with_static.split_for_impl();
        let args = generic_args(generics);
        let (marker_decl, marker_value) = if *marker {
            (
                quote!(__marker: #p::PhantomData<fn() -> (__M, __P, #this)>,),
                quote!(__marker: #p::PhantomData,),
            )
        } else {
            (TokenStream::new(), TokenStream::new())
        };
        quote! {
            #[allow(private_interfaces, unnameable_types, missing_docs)]
            pub struct #ident<#(#params,)* __M, __P> #where_clause {
                #(#decls,)*
                #marker_decl
            }

            #[automatically_derived]
            impl<#(#params,)* __M: 'static, __P: #p::Prefix> #p::NestedFields
                for #ident<#(#args,)* __M, __P> #where_clause
            {
                const FIELDS: &'static Self = &#ident {
                    #(#values,)*
                    #marker_value
                };
                const KEYS: &'static [(&'static ::core::primitive::str, &'static ::core::primitive::str)] =
                    &[#(#keys),*];
                const DESCRIBE: &'static ::core::primitive::str = #describe;
            }

            #[automatically_derived]
            impl #impl_generics #p::Nested for #this #where_clause {
                type Fields<__M: 'static, __P: #p::Prefix> = #ident<#(#args,)* __M, __P>;
                type Count = #p::One;
            }

            #[automatically_derived]
            impl #impl_generics #p::FieldNames for #this #where_clause {
                const NAMES: &'static [&'static ::core::primitive::str] = &[#(#names),*];
            }
        }
    }
}

/// `generics` with every type parameter `'static`: the constants are.
fn with_static(generics: &syn::Generics) -> syn::Generics {
    let mut with_static = generics.clone();
    for param in with_static.type_params_mut() {
        param.bounds.push(syn::parse_quote!('static));
    }
    with_static
}

/// One path of a tagged enum: a Rust field name that one or more struct
/// variants declare, with one type and one stored name in all of them.
struct VariantPath<'f, 'a> {
    /// The first variant's field (its type, kind and stored name serve all).
    field: &'f Field<'a>,
    /// The stored name relative to the enum (`glass`, or `c.glass` below an
    /// adjacently tagged enum's content).
    stored: String,
    /// The variants that declare it.
    variants: Vec<String>,
    /// Another variant declares the same Rust name with another type or
    /// stored name: no path is offered.
    disagree: bool,
}

/// `#[derive(Embedded)]` on an internally tagged (`#[serde(tag = "type")]`)
/// or adjacently tagged (`tag`, `content`) enum: the field constants below
/// any path, as for a struct (`Recipe::FIELDS.kind.glass`), one per Rust
/// field name of its struct variants, and `tag()`. A name two variants
/// declare with the same type and stored name is one path; with another
/// type or stored name it is none. Every path's type goes through
/// `Variants`, which takes no typed update. Nothing for an externally
/// tagged or untagged enum (no field of its own holds the variant), nor
/// for one with lifetime parameters.
fn nested_enum(input: &Input, variants: &[Variant]) -> TokenStream {
    let Some(tag) = &input.serde.tag else {
        return TokenStream::new();
    };
    let generics = &input.original.generics;
    if input.serde.untagged || generics.lifetimes().next().is_some() {
        return TokenStream::new();
    }
    let p = private(input);
    let model = input.ident;
    let ident = format_ident!("__{}Fields", model.unraw());
    let (_, ty_generics, _) = generics.split_for_impl();
    let this = quote!(#model #ty_generics);
    let content = input.serde.content.as_ref();
    // Variants stored as their content alone carry no tag: their fields are
    // not the tagged paths'.
    let tagged: Vec<&Variant> = variants.iter().filter(|v| !v.skip && !v.untagged).collect();
    let mut paths: Vec<VariantPath> = Vec::new();
    for variant in &tagged {
        if variant.style != Style::Struct {
            continue;
        }
        for field in variant.fields.iter().filter(|f| f.is_stored()) {
            let stored = match content {
                Some(content) => format!("{content}.{}", field.stored),
                None => field.stored.clone(),
            };
            let ty = field.ty.to_token_stream().to_string();
            match paths.iter_mut().find(|p| p.field.name == field.name) {
                Some(path) => {
                    if path.stored != stored || path.field.ty.to_token_stream().to_string() != ty {
                        path.disagree = true;
                    }
                    path.variants.push(variant.ident.unraw().to_string());
                }
                None => paths.push(VariantPath {
                    field,
                    stored,
                    variants: vec![variant.ident.unraw().to_string()],
                    disagree: false,
                }),
            }
        }
    }
    let disagree: Vec<String> = paths
        .iter()
        .filter(|p| p.disagree)
        .map(|p| format!("`{}` ({})", p.field.name, p.variants.join(", ")))
        .collect();
    paths.retain(|p| !p.disagree);
    let mut helpers = Vec::new();
    let mut decls = Vec::new();
    let mut values = Vec::new();
    for (index, path) in paths.iter().enumerate() {
        let Some(name) = &path.field.original.ident else {
            continue;
        };
        let prefix = quote!(#p::Seg<#this, #p::Variants<__P>, #index>);
        let at = Place {
            model: quote!(__M),
            path: quote!(<#prefix as #p::Prefix>::PATH),
            prefix,
        };
        let (field_ty, value) = constant(input, path.field, &at, &mut helpers);
        let doc = format!(
            "`{}` of {}, stored as `{}` below the enum.",
            path.field.name,
            path.variants.join(", "),
            path.stored
        );
        decls.push(quote!(#[doc = #doc] pub #name: #field_ty));
        values.push(quote!(#name: #value));
    }
    let tag_index = paths.len();
    let tag_path = quote!(#p::Seg<#this, #p::Variants<__P>, #tag_index>);
    let mut names: Vec<&str> = paths.iter().map(|p| p.stored.as_str()).collect();
    names.push(tag);
    let variant_names = tagged.iter().map(|v| &v.stored);
    let tag_doc = format!(
        "The tag, stored as `{tag}` below the enum: the variant a document holds, by its stored name."
    );
    let enum_name = model.unraw().to_string();
    let keys = paths.iter().map(|path| {
        let (name, stored) = (&path.field.name, &path.stored);
        quote!((#name, #stored))
    });
    let describe = describe_enum(&enum_name, &tagged, &disagree);
    // The field constants name every parameter but when there are none
    // (and the marker is then not among the fields a typo is offered).
    let fields_type = FieldsType {
        ident: ident.clone(),
        this: this.clone(),
        decls,
        values,
        marker: paths.is_empty(),
        keys: keys.collect(),
        describe,
        names: names.iter().map(|n| quote!(#n)).collect(),
    };
    let common = fields_type.expand(&p, generics);
    let with_static = with_static(generics);
    let params: Vec<_> = with_static.params.iter().collect();
    let where_clause = &with_static.where_clause;
    let (impl_generics, _, _) = with_static.split_for_impl();
    let args: Vec<_> = generic_args(generics);
    quote! {
        #common

        #[automatically_derived]
        #[allow(private_interfaces)]
        impl<#(#params,)* __M: 'static, __P: #p::Prefix> #ident<#(#args,)* __M, __P> #where_clause {
            #[doc = #tag_doc]
            pub const fn tag(&self) -> #p::TagField<__M, #this, #tag_path> {
                #p::TagField::new(<#tag_path as #p::Prefix>::PATH)
            }
        }

        #[automatically_derived]
        impl #impl_generics #p::Tagged for #this #where_clause {
            const ENUM: &'static ::core::primitive::str = #enum_name;
            const TAG: &'static ::core::primitive::str = #tag;
            const VARIANTS: &'static [&'static ::core::primitive::str] = &[#(#variant_names),*];
        }

        #(#helpers)*
    }
}

/// The message of an index key naming no path of a tagged enum: what to
/// name instead, each variant with its fields.
fn describe_enum(name: &str, variants: &[&Variant], disagree: &[String]) -> String {
    let listed: Vec<String> = variants
        .iter()
        .map(|v| {
            let fields: Vec<String> = v
                .fields
                .iter()
                .filter(|f| f.is_stored() && v.style == Style::Struct)
                .map(|f| f.name.clone())
                .collect();
            if fields.is_empty() {
                format!("`{}` (no field)", v.ident.unraw())
            } else {
                format!("`{} {{ {} }}`", v.ident.unraw(), fields.join(", "))
            }
        })
        .collect();
    let mut text = format!(
        "no path of `{name}` has this name: name a field of one of its variants by its Rust name, or the tag as `tag()`; its variants are {}",
        listed.join(", ")
    );
    if !disagree.is_empty() {
        text.push_str(&format!(
            "; a field two variants declare with different types or stored names has no path: {}",
            disagree.join(", ")
        ));
    }
    text
}

/// The generic parameters as arguments (`T, N, 'a`).
fn generic_args(generics: &syn::Generics) -> Vec<TokenStream> {
    generics
        .params
        .iter()
        .map(|param| match param {
            syn::GenericParam::Type(t) => {
                let ident = &t.ident;
                quote!(#ident)
            }
            syn::GenericParam::Const(c) => {
                let ident = &c.ident;
                quote!(#ident)
            }
            syn::GenericParam::Lifetime(l) => {
                let lifetime = &l.lifetime;
                quote!(#lifetime)
            }
        })
        .collect()
}
