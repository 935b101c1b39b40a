//! What `#[document(shard_key(...))]` adds: `const SHARD_KEY` inside `impl
//! Document`, by stored names, and the assertion that each field's type is
//! one value also behind a type alias (the `IdProbe` of the `_id` rule,
//! with the shard key's message), spanned on the field's type.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::scope::{private, private_at};
use crate::ast::Input;
use crate::attr::KeyName;

/// `const SHARD_KEY: ... = Some(..);`, or nothing.
pub fn spec(input: &Input) -> TokenStream {
    let Some(key) = &input.attrs.shard_key else {
        return TokenStream::new();
    };
    let p = private(input);
    let fields = key
        .fields
        .iter()
        .map(|f| input.stored_key(&KeyName::Field(f.ident.clone())));
    let hashed = key.hashed().is_some();
    quote! {
        const SHARD_KEY: #p::Option<#p::ShardKey> = #p::Some(#p::ShardKey {
            fields: &[#(#fields),*],
            hashed: #hashed,
        });
    }
}

/// The assertions, as statements of the never-called rules fn. Fields the
/// checks reported on (and `_id`, which its own rule probes) are skipped.
pub fn asserts(input: &Input) -> Vec<TokenStream> {
    let Some(key) = &input.attrs.shard_key else {
        return Vec::new();
    };
    key.fields
        .iter()
        .filter_map(|f| input.field_named(&f.name()))
        .filter(|field| field.is_stored() && !field.is_flagged() && field.stored != "_id")
        .map(|field| {
            let ty = field.ty;
            let p = private_at(input, ty.span());
            quote_spanned! {ty.span()=> {
                #[allow(unused_imports)]
                use #p::{IdAccepted as _, IdRefused as _};
                (&#p::IdProbe::<#ty>::NEW).check_shard_key();
            }}
        })
        .collect()
}
