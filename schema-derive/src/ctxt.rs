//! The error accumulator: every mistake in a derive input is collected here
//! and reported at once, each with its own span (as `serde_derive` does).

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Collects the errors found while parsing and checking one derive input.
///
/// Call [`Ctxt::finish`] once at the end: it returns every error combined
/// into one `syn::Error`, so the user sees all of them in one build.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt::default()
    }

    /// Reports `msg` spanned on the tokens of `obj`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, obj: T, msg: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// Reports `msg` at `span`.
    pub fn error_at<M: Display>(&self, span: proc_macro2::Span, msg: M) {
        self.errors.borrow_mut().push(syn::Error::new(span, msg));
    }

    /// Reports an error produced by syn (a malformed attribute).
    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// `Ok` when nothing was reported, else every error as `compile_error!`s.
    #[must_use = "the collected errors must be emitted"]
    pub fn finish(self) -> Result<(), TokenStream> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for err in errors {
            combined.combine(err);
        }
        Err(combined.to_compile_error())
    }

    /// Every message reported so far, in order: what unit tests compare.
    #[cfg(test)]
    pub fn messages(self) -> Vec<String> {
        self.errors
            .into_inner()
            .iter()
            .map(ToString::to_string)
            .collect()
    }
}
