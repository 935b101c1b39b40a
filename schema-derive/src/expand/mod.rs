//! Code generation: one file per thing generated. Everything is wrapped in
//! `const _: () = { ... };` and names every item by an absolute path through
//! `schema_core::__private` (or the `crate = "..."` override), so that a
//! user's own `Result`, `Vec` or `String` cannot shadow it.

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
mod timeseries;
mod validator;

use proc_macro2::{Group, Span, TokenStream, TokenTree};
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
            wrap(body)
        }
        Err(errors) => {
            let fallback = fallback::expand(&model);
            let fallback = if fallback.is_empty() {
                fallback
            } else {
                wrap(fallback)
            };
            quote! {
                #errors
                #fallback
            }
        }
    }
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

/// `schema_core::__private`, or the override's.
fn private(input: &Input) -> TokenStream {
    let krate = input.krate();
    quote!(#krate::__private)
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
fn private_at(input: &Input, span: Span) -> TokenStream {
    respan(private(input), span)
}

fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(group) => {
                let mut respanned = Group::new(group.delimiter(), respan(group.stream(), span));
                respanned.set_span(span);
                TokenTree::Group(respanned)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
