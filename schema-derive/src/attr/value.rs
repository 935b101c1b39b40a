//! Reading the value of one key: a flag, `key = value` (an integer in a
//! range, a string, a type), or `key(...)` run through a grammar. Each
//! reader reports a malformed value with the way to write it, and returns
//! `None` so that parsing goes on.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseBuffer, ParseStream};
use syn::{Lit, LitStr, Token, Type};

use super::list::{drain, skip_rest};
use crate::ctxt::Ctxt;

/// A flag key (`unique`): no value allowed. Returns true, its value.
pub(super) fn flag(cx: &Ctxt, meta: &ParseNestedMeta, name: &str, span: Span) -> bool {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        cx.error_at(
            span,
            format!("`{name}` takes no value: write `{name}` alone"),
        );
    }
    true
}

/// The value after `key =`, or an error saying how to write it.
pub(super) fn value<'a>(
    cx: &Ctxt,
    meta: &'a ParseNestedMeta,
    name: &str,
    span: Span,
    example: &str,
) -> Option<ParseStream<'a>> {
    if !meta.input.peek(Token![=]) {
        cx.error_at(
            span,
            format!("`{name}` needs a value: `{name} = {example}`"),
        );
        return None;
    }
    match meta.value() {
        Ok(input) => Some(input),
        Err(err) => {
            cx.syn_error(err);
            None
        }
    }
}

/// A literal value as written, with an optional leading `-`.
pub(super) enum Written {
    Lit {
        negative: bool,
        lit: Lit,
        tokens: TokenStream,
    },
    Other(TokenStream),
}

impl Written {
    pub(super) fn tokens(&self) -> &TokenStream {
        match self {
            Written::Lit { tokens, .. } | Written::Other(tokens) => tokens,
        }
    }
}

pub(super) fn parse_written(input: ParseStream) -> Written {
    let fork = input.fork();
    let literal = (|| -> syn::Result<(Option<Token![-]>, Lit)> {
        let minus: Option<Token![-]> = fork.parse()?;
        let lit: Lit = fork.parse()?;
        Ok((minus, lit))
    })();
    let at_end = fork.is_empty() || fork.peek(Token![,]);
    if let (Ok((minus, lit)), true) = (literal, at_end) {
        let negative = minus.is_some();
        let tokens = quote!(#minus #lit);
        // Move the real stream past what the fork read.
        skip_rest(input);
        return Written::Lit {
            negative,
            lit,
            tokens,
        };
    }
    let mut tokens = TokenStream::new();
    while !input.is_empty() && !input.peek(Token![,]) {
        match input.parse::<TokenTree>() {
            Ok(tt) => tokens.extend([tt]),
            Err(_) => break,
        }
    }
    Written::Other(tokens)
}

/// `key = N` with `N` an integer in `min..=max`.
pub(super) fn int_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    name: &str,
    span: Span,
    min: u64,
    max: u64,
) -> Option<(u64, Span)> {
    let input = value(cx, meta, name, span, "100")?;
    let written = parse_written(input);
    let tokens = written.tokens().clone();
    let vspan = first_span(&tokens).unwrap_or(span);
    match written {
        Written::Lit {
            negative,
            lit: Lit::Int(int),
            ..
        } => {
            let parsed = int.base10_parse::<u64>().ok();
            match parsed {
                Some(n) if !negative && n >= min && n <= max => Some((n, vspan)),
                Some(0) if !negative => {
                    cx.error_spanned_by(
                        &tokens,
                        format!("`{name} = 0`: `{name}` must be at least {min}"),
                    );
                    None
                }
                _ => {
                    cx.error_spanned_by(
                        &tokens,
                        format!("`{name}` must be an integer from {min} to {max}"),
                    );
                    None
                }
            }
        }
        other => {
            let found = match &other {
                Written::Lit {
                    lit: Lit::Str(_), ..
                } => " (found a string)",
                Written::Lit {
                    lit: Lit::Float(_), ..
                } => " (found a float)",
                _ => "",
            };
            cx.error_spanned_by(
                other.tokens(),
                format!("`{name}` must be an integer literal such as `{name} = 100`{found}"),
            );
            None
        }
    }
}

fn first_span(tokens: &TokenStream) -> Option<Span> {
    tokens.clone().into_iter().next().map(|tt| tt.span())
}

/// `key = "text"`.
pub(super) fn str_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    name: &str,
    span: Span,
    example: &str,
) -> Option<LitStr> {
    let input = value(cx, meta, name, span, example)?;
    match parse_written(input) {
        Written::Lit {
            lit: Lit::Str(lit),
            negative: false,
            ..
        } => Some(lit),
        other => {
            cx.error_spanned_by(
                other.tokens(),
                format!("`{name}` must be a string literal: `{name} = {example}`"),
            );
            None
        }
    }
}

/// `key = SomeType`.
pub(super) fn type_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    name: &str,
    span: Span,
) -> Option<Type> {
    let input = value(cx, meta, name, span, "Type")?;
    match input.parse::<Type>() {
        Ok(ty) => Some(ty),
        Err(err) => {
            cx.syn_error(err);
            None
        }
    }
}

pub(super) fn parens<'a>(input: ParseStream<'a>) -> syn::Result<ParseBuffer<'a>> {
    let content;
    syn::parenthesized!(content in input);
    Ok(content)
}

/// Whether `name` is followed by a list; when not, says so on `name`
/// with an example, `name(example)`.
pub(super) fn is_list(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    name: &str,
    span: Span,
    example: &str,
) -> bool {
    let list = meta.input.peek(syn::token::Paren);
    if !list {
        cx.error_at(span, format!("`{name}` takes a list: `{name}({example})`"));
    }
    list
}

/// Runs a parser over `key(...)`'s parenthesized content; on a syntax error
/// reports it and skips the rest of the group.
pub(super) fn in_parens<T>(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    name: &str,
    span: Span,
    example: &str,
    parse: impl FnOnce(ParseStream) -> syn::Result<T>,
) -> Option<T> {
    if !is_list(cx, meta, name, span, example) {
        return None;
    }
    let content = match parens(meta.input) {
        Ok(content) => content,
        Err(err) => {
            cx.syn_error(err);
            return None;
        }
    };
    let parsed = parse(&content);
    drain(&content);
    match parsed {
        Ok(value) => Some(value),
        Err(err) => {
            cx.syn_error(err);
            None
        }
    }
}

/// `max = N`, `N` from 1 to `u32::MAX`, with the span of `N`.
pub(super) fn max_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    name: &str,
    span: Span,
) -> (Option<u32>, Option<Span>) {
    match int_value(cx, meta, name, span, 1, u64::from(u32::MAX)) {
        Some((n, at)) => (u32::try_from(n).ok(), Some(at)),
        None => (None, None),
    }
}
