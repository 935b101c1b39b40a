//! `#[copy(...)]` and `#[snapshot(...)]`: the checks only the compiler can
//! make (the holder's type against the source field's, an array copy's
//! bound against its link's), and `Document::copies()`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;

use super::scope::{model_type, private, private_at};
use crate::ast::{Field, Input};
use crate::attr::{CopyKind, FieldKind};

/// The source model of a field's copy, and whether it copies through
/// many ids.
fn source(input: &Input, field: &Field) -> Option<(TokenStream, bool)> {
    let copy = field.copy.as_ref()?;
    match copy.kind {
        CopyKind::Snapshot => Some((model_type(copy.of.as_ref()?, input), false)),
        CopyKind::Follows => {
            let from = input.field_named(&copy.from.as_ref()?.unraw().to_string())?;
            match &from.kind {
                FieldKind::Reference(r) => Some((model_type(r.to.as_ref()?, input), false)),
                FieldKind::ManyToMany(l) => Some((model_type(l.to.as_ref()?, input), true)),
                _ => None,
            }
        }
    }
}

/// The type and bound checks, for a document or a sub-document.
pub fn checks(input: &Input) -> TokenStream {
    let p = private(input);
    let checks = input.struct_fields().iter().filter(|f| !f.flagged.get()).filter_map(|field| {
        let copy = field.copy.as_ref()?;
        let source_field = copy.field.as_ref()?;
        let (source, many) = source(input, field)?;
        let ty = field.ty;
        let at = private_at(input, source_field.span());
        let assert = if many {
            quote_spanned!(source_field.span()=> #at::assert_copy_many::<#ty, _, _, _>)
        } else {
            quote_spanned!(source_field.span()=> #at::assert_copy_one::<#ty, _, _, _>)
        };
        let value = quote_spanned!(source_field.span()=> &<#source as #p::Document>::FIELDS.#source_field);
        let bound = bound_check(input, field);
        // A copy of an encrypted field is encrypted too (`Copies` writes
        // it sealed), never its value in clear.
        let sealed = (field.encrypt.is_none()).then(|| {
            let message = format!(
                "`{}` copies `{}`, an encrypted field: declare the copy `#[encrypt(random)]` (or `deterministic`) too, so that it is not stored in clear",
                field.name,
                source_field.unraw()
            );
            quote_spanned! {source_field.span()=>
                const _: () = ::core::assert!(!#at::source_encrypted(#value), #message);
            }
        });
        Some(quote! {
            const _: () = {
                fn __copy_type() {
                    #assert(#value);
                }
                #bound
                #sealed
            };
        })
    });
    quote!(#(#checks)*)
}

/// An array copy holds as many values as its link may hold ids.
fn bound_check(input: &Input, field: &Field) -> TokenStream {
    let p = private(input);
    let (FieldKind::Embed(embed), Some(copy)) = (&field.kind, &field.copy) else {
        return TokenStream::new();
    };
    let (Some(max), Some(span)) = (embed.max, embed.max_span) else {
        return TokenStream::new();
    };
    let Some(from) = copy
        .from
        .as_ref()
        .and_then(|f| input.field_named(&f.unraw().to_string()))
    else {
        return TokenStream::new();
    };
    let FieldKind::ManyToMany(link) = &from.kind else {
        return TokenStream::new();
    };
    let link_max = match link.max {
        Some(max) => quote!(#max),
        None => quote!(#p::DEFAULT_LINK_MAX),
    };
    let message = format!(
        "`{}` copies one value per id of `{}`: its `max` ({max}) must be at least the link's `max`",
        field.label, from.name
    );
    quote_spanned! {span=>
        const _: () = if (#max as u64) < (#link_max as u64) {
            ::core::panic!(#message)
        };
    }
}

/// The body of `Document::copies()`.
pub fn specs(input: &Input) -> TokenStream {
    let p = private(input);
    let specs = input.struct_fields().iter().filter_map(|field| {
        let copy = field
            .copy
            .as_ref()
            .filter(|c| c.kind == CopyKind::Follows)?;
        let source_field = copy.field.as_ref()?;
        let from = input.field_named(&copy.from.as_ref()?.unraw().to_string())?;
        let (source, many) = source(input, field)?;
        let (stored, from_stored) = (&field.stored, &from.stored);
        let follow = if copy.by_consumer {
            quote!(#p::CopyFollow::Consumer)
        } else {
            quote!(#p::CopyFollow::Transaction)
        };
        Some(quote! {
            #p::CopySpec {
                field: #stored,
                from: #from_stored,
                many: #many,
                source: <#source as #p::Document>::COLLECTION,
                source_field: <#source as #p::Document>::FIELDS.#source_field.name(),
                follow: #follow,
            }
        })
    });
    quote!(#p::vec![#(#specs),*])
}
