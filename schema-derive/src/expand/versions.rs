//! What `#[document(migrate_from(V1, V2))]` (and `schema_version = N`) adds: the `VERSIONS` and the
//! upgrade chain inside `impl Document` (`upgrade_stored`, and a
//! `json_schema` with one branch per version), and the checks that each
//! earlier shape is a model of the same collection (see
//! `schema_core::versions`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::scope::private;
use crate::ast::Input;

/// The items inside `impl Document`, or nothing for a model with no
/// earlier shapes.
pub fn spec(input: &Input) -> TokenStream {
    let Some((current, first, older)) = input.attrs.versions() else {
        return TokenStream::new();
    };
    let p = private(input);
    let names: Vec<String> = older
        .iter()
        .map(|path| quote!(#path).to_string().replace(' ', ""))
        .collect();
    // The shapes after each one, ending with the model itself.
    let next: Vec<TokenStream> = older
        .iter()
        .skip(1)
        .map(|path| quote!(#path))
        .chain([quote!(Self)])
        .collect();
    let arms = older.iter().enumerate().map(|(i, shape)| {
        let from = first.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
        let steps = older[i..].iter().zip(&next[i..]).map(|(old, new)| {
            quote_spanned! {old.span()=>
                let __v = #p::step::<Self, #old, #new>(__v, #from, __raw)?;
            }
        });
        quote! {
            #from => {
                let __v = #p::decode_older::<Self, #shape>(__raw)?;
                #(#steps)*
                #p::Result::Ok(__v)
            }
        }
    });
    quote! {
        const VERSIONS: #p::Option<#p::Versions> = #p::Some(#p::Versions {
            current: #current,
            first: #first,
            older: &[#(#names),*],
        });

        fn upgrade_stored(
            __version: ::core::primitive::u32,
            __raw: &#p::bson::RawDocument,
        ) -> #p::Result<Self, #p::Error> {
            match __version {
                #(#arms)*
                _ => #p::Result::Err(#p::unknown_version::<Self>(__raw)),
            }
        }

        fn json_schema() -> #p::bson::Document {
            #p::versioned_schema(
                Self::TABLES.json_schema(),
                Self::VERSIONS,
                &[#(<#older as #p::Document>::json_schema()),*],
            )
        }
    }
}

/// `const _: () = assert_older::<Model, V>(version);` for each earlier
/// shape (with the version its place in the list gives it), spanned on its
/// name.
pub fn checks(input: &Input) -> TokenStream {
    let Some((_, first, older)) = input.attrs.versions() else {
        return TokenStream::new();
    };
    let p = private(input);
    let ident = input.ident;
    let checks = older.iter().enumerate().map(|(i, shape)| {
        let at = first.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
        quote_spanned! {shape.span()=>
            const _: () = #p::assert_older::<#ident, #shape>(#at);
        }
    });
    quote! { #(#checks)* }
}
