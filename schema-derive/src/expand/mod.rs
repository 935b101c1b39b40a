//! Code generation: one file per thing generated. Everything is wrapped in
//! `const _: () = { use ::schema_core::__private as __schema_core_private; ... };`
//! (or the `crate = "..."` override's path) and names every item through that
//! alias, so that a user's own `Result`, `Vec` or `String` cannot shadow it,
//! with one token per path prefix instead of five (see [`scope`]).
//!
//! This file runs the derive; `document` and `embedded` expand each
//! derive from the other files, `fallback` stands in after an error.

mod bounded;
mod bucket;
mod copy;
mod document;
mod embedded;
mod encrypted;
mod fallback;
mod fields;
mod ids;
mod indexes;
mod nested;
mod relations;
mod scope;
mod shard;
mod timeseries;
mod validator;
mod versions;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

pub(crate) use self::scope::wrap;
use self::scope::wrap_model;
use crate::ast::{Derive, Input};
use crate::check;
use crate::ctxt::Ctxt;

/// Parse, check, expand; after an error, the errors plus a fallback impl
/// and the trait-bound assertions of the fields no error was reported on, so
/// that mistakes only the compiler can see come out in the same build.
pub fn derive(input: &DeriveInput, derive: Derive) -> TokenStream {
    let cx = Ctxt::new();
    let model = Input::from_syn(&cx, input, derive);
    check::check(&cx, &model);
    match cx.finish() {
        Ok(()) => {
            let body = match derive {
                Derive::Document => document::expand(&model),
                Derive::Embedded => embedded::expand(&model),
            };
            wrap_model(&model, body)
        }
        Err(errors) => {
            let fallback = fallback::expand(&model);
            let fallback = if fallback.is_empty() {
                fallback
            } else {
                wrap_model(&model, fallback)
            };
            quote! {
                #errors
                #fallback
            }
        }
    }
}
