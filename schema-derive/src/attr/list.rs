//! Walking an attribute's `key ...` list: each key is handed to the
//! attribute's parser once, a repeated key is reported in one place
//! ([`SeenKeys`]), and whatever a parser leaves unread is skipped so that the
//! next key still parses.

use proc_macro2::{Span, TokenTree};
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Attribute, Meta, Token};

use crate::ctxt::Ctxt;
use crate::suggest;

/// The first segment of a key path, for messages and spans.
fn key_ident(path: &syn::Path) -> (String, Span) {
    let name = path
        .segments
        .iter()
        .map(|s| s.ident.unraw().to_string())
        .collect::<Vec<_>>()
        .join("::");
    let span = path
        .segments
        .first()
        .map_or_else(Span::call_site, |s| s.ident.span());
    (name, span)
}

/// Consumes the rest of one `key ...` entry, up to the next top-level comma.
pub fn skip_rest(input: ParseStream) {
    while !input.is_empty() && !input.peek(Token![,]) {
        if input.parse::<TokenTree>().is_err() {
            break;
        }
    }
}

/// Consumes everything left in a parenthesized group.
pub(super) fn drain(input: ParseStream) {
    while !input.is_empty() {
        if input.parse::<TokenTree>().is_err() {
            break;
        }
    }
}

/// Runs `f` on each `key ...` of an attribute's list. `#[attr]` with no list
/// runs nothing; a malformed list is reported once.
pub(super) fn for_each_key(
    cx: &Ctxt,
    attr: &Attribute,
    seen: &mut SeenKeys,
    mut f: impl FnMut(&ParseNestedMeta, &str, Span),
) {
    if let Meta::Path(_) = attr.meta {
        return;
    }
    let result = attr.parse_nested_meta(|meta| {
        let (name, span) = key_ident(&meta.path);
        if seen.first(cx, &name, span) {
            f(&meta, &name, span);
        }
        skip_rest(meta.input);
        Ok(())
    });
    if let Err(err) = result {
        cx.syn_error(err);
    }
}

/// Same as [`for_each_key`], inside a nested `key(...)`.
pub(super) fn for_each_nested_key(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    mut f: impl FnMut(&ParseNestedMeta, &str, Span),
) {
    let mut seen = SeenKeys::default();
    let result = meta.parse_nested_meta(|inner| {
        let (name, span) = key_ident(&inner.path);
        if seen.first(cx, &name, span) {
            f(&inner, &name, span);
        }
        skip_rest(inner.input);
        Ok(())
    });
    if let Err(err) = result {
        cx.syn_error(err);
        skip_rest(meta.input);
    }
}

pub(super) fn unknown_key(cx: &Ctxt, attr: &str, name: &str, span: Span, known: &[&str]) {
    cx.error_at(
        span,
        format!(
            "unknown `#[{attr}]` key `{name}`{}",
            suggest::hint(name, known)
        ),
    );
}

/// The keys met so far in one attribute (for `#[document]`, in all of a
/// type's `#[document]` attributes): the one place a repeated key is found.
/// A repeated key is reported and its value left unread, so the first value
/// is the one kept, for every key alike. `index(...)` may repeat: each
/// declares an index of its own.
#[derive(Default)]
pub(super) struct SeenKeys {
    names: Vec<String>,
    repeatable: &'static [&'static str],
}

impl SeenKeys {
    /// Keys of which `repeatable` may appear more than once.
    pub(super) fn repeating(repeatable: &'static [&'static str]) -> Self {
        SeenKeys {
            names: Vec::new(),
            repeatable,
        }
    }

    /// Whether `name` is met for the first time (or may repeat); reports a
    /// duplicate otherwise.
    fn first(&mut self, cx: &Ctxt, name: &str, span: Span) -> bool {
        if self.repeatable.contains(&name) {
            return true;
        }
        if self.names.iter().any(|seen| seen == name) {
            cx.error_at(span, format!("duplicate `{name}`"));
            return false;
        }
        self.names.push(name.to_owned());
        true
    }
}

/// The span of an attribute's name (`embed` in `#[embed(...)]`).
pub(super) fn attr_span(attr: &Attribute) -> Span {
    key_ident(attr.path()).1
}
