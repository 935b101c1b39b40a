//! Code generation: one file per thing generated. Everything is wrapped in
//! `const _: () = { use ::schema_core::__private as __schema_core_private; ... };`
//! (or the `crate = "..."` override's path) and names every item through that
//! alias, so that a user's own `Result`, `Vec` or `String` cannot shadow it,
//! with one token per path prefix instead of five.

mod bounded;
mod bucket;
mod copy;
mod document;
mod embedded;
mod fallback;
mod fields;
mod ids;
mod indexes;
mod relations;
mod shard;
mod timeseries;
mod validator;
mod versions;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::{DeriveInput, Type};

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

/// `wrap`, with the alias of the model's `__private` path the body names.
fn wrap_model(input: &Input, body: TokenStream) -> TokenStream {
    let krate = input.krate();
    let alias = private_alias();
    wrap(quote! {
        use #krate::__private as #alias;
        #body
    })
}

/// The alias of `schema_core::__private` inside the generated block.
fn private_alias() -> Ident {
    Ident::new("__schema_core_private", Span::call_site())
}

pub(crate) fn wrap(body: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(
            non_upper_case_globals,
            non_camel_case_types,
            non_snake_case,
            unused_qualifications,
            clippy::all,
            clippy::pedantic
        )]
        const _: () = {
            #body
        };
    }
}

/// `schema_core::__private`, or the override's, through its alias: one
/// `Ident`, which `quote!` appends as a token (a `TokenStream` would be
/// spliced, a far costlier call into the compiler for every path).
fn private(_input: &Input) -> Ident {
    private_alias()
}

/// A model type named in an attribute (`to = User`); `Self` means the
/// container, spelled out because the generated code is not inside its impl.
fn model_type(ty: &Type, input: &Input) -> TokenStream {
    if let Type::Path(path) = ty {
        if path.qself.is_none() && path.path.is_ident("Self") {
            let ident = input.ident;
            return quote!(#ident);
        }
    }
    quote!(#ty)
}

/// `private(input)` with every token at `span`: an error about an expression
/// built from it (an unsatisfied bound) then points at the user's tokens
/// rather than at the derive.
fn private_at(input: &Input, span: Span) -> Ident {
    let mut alias = private(input);
    alias.set_span(span);
    alias
}
