//! `#[document(version)]` and `#[document(timestamps)]`: the fields they
//! keep (checked in `check`), and the items of `impl Document` that tell the
//! runtime their stored names (generated here).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::Input;

/// The Rust names of the fields `timestamps` keeps.
pub const CREATED_AT: &str = "created_at";
pub const UPDATED_AT: &str = "updated_at";

/// The key that keeps the field `name`, for messages.
pub fn key_of(name: &str) -> &'static str {
    if name == CREATED_AT || name == UPDATED_AT {
        "timestamps"
    } else {
        "version"
    }
}

/// The items of `impl Document` for the version and timestamps (none when
/// the model keeps neither, so the trait's defaults apply). `p` is the path
/// to `schema_core::__private`. Each field's type is checked where its value
/// is read, with the error on the field's type.
pub fn items(input: &Input, p: &proc_macro2::Ident) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some(field) = input
        .attrs
        .version
        .as_ref()
        .and_then(|(name, _)| input.field_named(name))
    {
        let stored = &field.stored;
        let member = &field.member;
        let ty = field.ty;
        let ty_check = quote_spanned! {ty.span()=>
            <#ty as #p::VersionField>::TYPE
        };
        let read = quote_spanned! {ty.span()=>
            <#ty as #p::VersionField>::to_version(&self.#member)
        };
        out.extend(quote! {
            const VERSION: #p::Option<(&'static ::core::primitive::str, #p::VersionType)> =
                #p::Some((#stored, #ty_check));
            fn version(&self) -> #p::Option<::core::primitive::i64> {
                #p::Some(#read)
            }
        });
    }
    if input.attrs.timestamps.is_some() {
        if let (Some(created), Some(updated)) =
            (input.field_named(CREATED_AT), input.field_named(UPDATED_AT))
        {
            let (c, u) = (&created.stored, &updated.stored);
            let check = |ty: &syn::Type| {
                quote_spanned! {ty.span()=>
                    <#ty as #p::TimestampField>::STORED_AS_DATE
                }
            };
            let (cc, uc) = (check(created.ty), check(updated.ty));
            out.extend(quote! {
                const TIMESTAMPS: #p::Option<(
                    &'static ::core::primitive::str,
                    &'static ::core::primitive::str,
                )> = {
                    let _ = (#cc, #uc);
                    #p::Some((#c, #u))
                };
            });
        }
    }
    out
}
