//! The compile-time rule, as trait bounds spanned on each field's type:
//! a plain field must be `BoundedAt<AsField>`; an `#[embed(max = N)]` or
//! many-to-many field must be a `BoundedCollection` of `BoundedAt<AsItem>`
//! items; a sub-document must not hold itself (`Nesting`); a two-sided link's
//! inverse must be a link back to this model.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::scope::{model_type, private, private_at};
use crate::ast::{Derive, Field, Input};
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
                // A custom serializer stores something else than the Rust
                // type, but what it stores is made from the Rust value: the
                // type stays checked, unless the serializer is a known
                // encoding of one value (`serde_bytes`, `bson::serde_helpers`).
                if !field.serde.single_value_encoding {
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
    if input.derive == Derive::Document {
        asserts.extend(super::ids::asserts(input));
        asserts.extend(super::shard::asserts(input));
    }
    // The rules may hold a type parameter as an item too: both positions.
    let mut generics = bounded_generics(input);
    let params: Vec<_> = generics.type_params().map(|t| t.ident.clone()).collect();
    if input.derive == Derive::Embedded && !params.is_empty() {
        let p = private(input);
        let predicates = &mut generics.make_where_clause().predicates;
        predicates.extend(
            params
                .iter()
                .map(|t| -> syn::WherePredicate { syn::parse_quote!(#t: #p::Bounded) }),
        );
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    // A non-generic sub-document walks itself for recursion; the constant
    // is evaluated whether or not anything uses it.
    let walk = (input.derive == Derive::Embedded && !is_generic(input)).then(|| {
        let p = private_at(input, ident.span());
        quote_spanned! {ident.span()=>
            const _: () = <#ident as #p::Nesting<#p::DepthBudget>>::WALK;
        }
    });
    quote! {
        #[allow(dead_code, unused_variables, clippy::all)]
        fn __schema_rules #impl_generics () #where_clause {
            #(#asserts)*
        }

        #walk
    }
}

/// Type or const parameters: the type cannot check itself for recursion
/// (its fields' types are not known), it is checked where it is used.
fn is_generic(input: &Input) -> bool {
    let generics = &input.original.generics;
    generics.type_params().next().is_some() || generics.const_params().next().is_some()
}

/// Fields whose stored form the walk for recursion follows: stored, and not
/// opted out of the rule (`#[embed(unbounded)]`) or stored by a custom
/// serializer as something else than the Rust type.
fn walked(field: &Field) -> bool {
    field.is_stored()
        && !field.serde.custom_serializer
        && !matches!(&field.kind, FieldKind::Embed(embed) if embed.unbounded.is_some())
}

/// `impl BoundedAt<P>` (a sub-document is bounded wherever it is stored:
/// its own fields are checked by its own derive) and `impl Nesting<B>`, which
/// spends one level of the depth budget and requires the rest of its fields.
pub fn impls(input: &Input) -> TokenStream {
    impls_walking(input, true)
}

/// After an error: the same impls with no condition, so that the errors
/// already reported are not followed by others about this type.
pub fn fallback_impls(input: &Input) -> TokenStream {
    impls_walking(input, false)
}

fn impls_walking(input: &Input, walk: bool) -> TokenStream {
    let p = private(input);
    let ident = input.ident;
    let generics = bounded_generics(input);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let place = quote!(__SchemaPlace);
    let budget = quote!(__SchemaBudget);
    let bounded_generics = with_param(&generics, &place);
    let nesting_generics = with_param(&generics, &budget);
    let (bounded_impl, _, _) = bounded_generics.split_for_impl();
    let (nesting_impl, _, _) = nesting_generics.split_for_impl();
    let this = quote!(#ident #ty_generics);
    let bounded = quote! {
        #[automatically_derived]
        impl #bounded_impl #p::BoundedAt<#place> for #this #where_clause {}
    };
    if !walk {
        return quote! {
            #bounded

            #[automatically_derived]
            impl #nesting_impl #p::Nesting<#budget> for #this #where_clause {
                const WALK: () = ();
            }
        };
    }
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|pred| quote!(#pred)).collect())
        .unwrap_or_default();
    let mut walks = Vec::new();
    for field in input.all_fields().into_iter().filter(|f| walked(f)) {
        let ty = field.ty;
        predicates.push(quote!(#ty: #p::Nesting<#budget>));
        walks.push(quote!(let () = <#ty as #p::Nesting<#budget>>::WALK;));
    }
    let recursive = syn::LitStr::new(
        &format!(
            "recursive type: `{ident}` is reached 16 sub-documents deep, so a type above it holds itself \
             (a sub-document that holds itself, an expression tree, or two sub-documents that hold each other) \
             and nothing bounds the depth of the stored document: store the recursive part in its own collection \
             and point at the parent with `#[reference(index)]`, or unroll it into a fixed number of levels"
        ),
        ident.span(),
    );
    let panic = quote_spanned!(ident.span()=> ::core::panic!(#recursive));
    quote! {
        #bounded

        #[automatically_derived]
        impl #nesting_impl #p::Nesting<#p::Deeper<#budget>> for #this where #(#predicates),* {
            const WALK: () = { #(#walks)* };
        }

        #[automatically_derived]
        impl #impl_generics #p::Nesting<#p::NoDepthLeft> for #this #where_clause {
            const WALK: () = #panic;
        }
    }
}

/// The container's generics, each type parameter bounded by
/// `BoundedAt<AsField> + BsonSchema` (for `#[derive(Embedded)]`): bounded
/// as a field is bounded anywhere for every type but a collection, which is
/// bounded nowhere, so one position is asked, and an unbounded type
/// argument is reported once.
pub fn bounded_generics(input: &Input) -> syn::Generics {
    let mut generics = input.original.generics.clone();
    if input.derive == Derive::Embedded {
        let p = private(input);
        let params: Vec<_> = generics.type_params().map(|t| t.ident.clone()).collect();
        let where_clause = generics.make_where_clause();
        for param in params {
            where_clause
                .predicates
                .push(syn::parse_quote!(#param: #p::BoundedAt<#p::AsField> + #p::BsonSchema));
        }
    }
    generics
}

/// The generics with one more type parameter, after the others.
fn with_param(generics: &syn::Generics, name: &TokenStream) -> syn::Generics {
    let mut generics = generics.clone();
    generics.params.push(syn::parse_quote!(#name));
    generics
}
