//! The scope generated code lives in: the `const _: () = { ... };` block
//! every expansion is wrapped in, the alias of `schema_core::__private` (or
//! the `crate = "..."` override's) it imports, and the paths built from that
//! alias. Every other file of `expand` names generated items through these.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::Type;

use crate::ast::Input;

/// `wrap`, with the alias of the model's `__private` path the body names.
pub fn wrap_model(input: &Input, body: TokenStream) -> TokenStream {
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

pub fn wrap(body: TokenStream) -> TokenStream {
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
pub fn private(_input: &Input) -> Ident {
    private_alias()
}

/// A model type named in an attribute (`to = User`); `Self` means the
/// container, spelled out because the generated code is not inside its impl.
pub fn model_type(ty: &Type, input: &Input) -> TokenStream {
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
pub fn private_at(input: &Input, span: Span) -> Ident {
    let mut alias = private(input);
    alias.set_span(span);
    alias
}
