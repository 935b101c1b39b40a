//! Index keys: a key's direction or kind ([`Dir`]), its name as written
//! ([`KeyName`]: a field, a Rust path into a sub-document or a dotted
//! string), and the key lists of `index(keys(...))` and
//! `#[reference(sort(...))]`.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Ident, Lit, LitStr, Token};

use crate::attr::keywords::{ASC, DESC, HASHED, SPHERE_2D, TEXT};
use crate::attr::value::{parens, parse_written, Written};

/// An index key direction, or `hashed` (an index key only, never a sort).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    Asc,
    Desc,
    Hashed,
    /// `"2dsphere"`: points on a sphere, for the geo operators.
    Sphere2d,
    /// `"text"`: words, for `$text` searches.
    Text,
}

impl Dir {
    /// The key's value as the server writes it in names and key documents.
    pub fn as_text(self) -> &'static str {
        match self {
            Dir::Asc => "1",
            Dir::Desc => "-1",
            Dir::Hashed => HASHED,
            Dir::Sphere2d => SPHERE_2D,
            Dir::Text => TEXT,
        }
    }

    /// Whether it is a kind of key (`hashed`, `"2dsphere"`) rather than a
    /// direction: such a key is its index's only one.
    pub fn is_kind(self) -> bool {
        matches!(self, Dir::Hashed | Dir::Sphere2d | Dir::Text)
    }
}

/// An index key as written: a Rust field of this struct, or a string literal
/// (a dotted path) passed to the server verbatim.
#[derive(Clone)]
pub enum KeyName {
    Field(Ident),
    Path(LitStr),
    /// A field of a sub-document (or a tagged enum's variants) by its Rust
    /// path, `kind.glass`, or the tag, `kind.tag()` (`index(keys(...))`
    /// only): its stored path is the field constant's, resolved by the
    /// compiler (the derive cannot see the sub-document's fields).
    Nested(NestedKey),
}

/// `kind.glass` (`path` = `[kind, glass]`) or `kind.tag()` (`call`).
#[derive(Clone)]
pub struct NestedKey {
    pub path: Vec<Ident>,
    /// The last segment is a method call (`tag()`).
    pub call: bool,
}

impl NestedKey {
    /// The path as written (`kind.glass`, `kind.tag()`), for messages.
    pub fn text(&self) -> String {
        let names: Vec<String> = self.path.iter().map(|i| i.unraw().to_string()).collect();
        let call = if self.call { "()" } else { "" };
        format!("{}{call}", names.join("."))
    }
}

impl KeyName {
    pub fn span(&self) -> Span {
        match self {
            KeyName::Field(ident) => ident.span(),
            KeyName::Path(lit) => lit.span(),
            KeyName::Nested(key) => key.path[0].span(),
        }
    }
}

impl ToTokens for KeyName {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            KeyName::Field(ident) => ident.to_tokens(tokens),
            KeyName::Path(lit) => lit.to_tokens(tokens),
            KeyName::Nested(key) => {
                let first = &key.path[0];
                first.to_tokens(tokens);
                for segment in &key.path[1..] {
                    <Token![.]>::default().to_tokens(tokens);
                    segment.to_tokens(tokens);
                }
            }
        }
    }
}

/// One `key = direction` of an index.
#[derive(Clone)]
pub struct IndexKey {
    pub name: KeyName,
    pub dir: Dir,
}

/// `asc`, `desc`, `1`, `-1`, `hashed`, `"2dsphere"` or `"text"`.
fn parse_dir(input: ParseStream) -> syn::Result<Dir> {
    let written = parse_written(input);
    let dir = match &written {
        Written::Lit {
            negative,
            lit: Lit::Int(int),
            ..
        } => match (negative, int.base10_digits()) {
            (false, "1") => Some(Dir::Asc),
            (true, "1") => Some(Dir::Desc),
            _ => None,
        },
        Written::Lit {
            negative: false,
            lit: Lit::Str(kind),
            ..
        } => match kind.value().as_str() {
            SPHERE_2D => Some(Dir::Sphere2d),
            TEXT => Some(Dir::Text),
            _ => None,
        },
        Written::Other(tokens) => match syn::parse2::<Ident>(tokens.clone()) {
            Ok(ident) if ident == ASC => Some(Dir::Asc),
            Ok(ident) if ident == DESC => Some(Dir::Desc),
            Ok(ident) if ident == HASHED => Some(Dir::Hashed),
            _ => None,
        },
        Written::Lit { .. } => None,
    };
    dir.ok_or_else(|| {
        syn::Error::new_spanned(
            written.tokens(),
            "expected an index direction: `asc` or `desc` (or `1` / `-1`), or a kind: `hashed`, `\"2dsphere\"` or `\"text\"`",
        )
    })
}

pub(super) fn parse_key_name(input: ParseStream) -> syn::Result<KeyName> {
    if input.peek(LitStr) {
        Ok(KeyName::Path(input.parse()?))
    } else {
        Ok(KeyName::Field(input.call(Ident::parse_any)?))
    }
}

/// [`parse_key_name`], or a Rust path into a sub-document: `kind.glass`,
/// `kind.tag()`.
fn parse_index_key_name(input: ParseStream) -> syn::Result<KeyName> {
    let name = parse_key_name(input)?;
    let KeyName::Field(first) = name else {
        return Ok(name);
    };
    if !input.peek(Token![.]) {
        return Ok(KeyName::Field(first));
    }
    let mut key = NestedKey {
        path: vec![first],
        call: false,
    };
    while input.peek(Token![.]) {
        let dot = input.parse::<Token![.]>()?;
        if key.call {
            return Err(syn::Error::new(
                dot.span,
                "a key ends at `tag()`: the tag holds a variant's name, no fields",
            ));
        }
        key.path.push(input.call(Ident::parse_any)?);
        if input.peek(syn::token::Paren) {
            let args = parens(input)?;
            let last = key.path.last().map(|i| i.unraw().to_string());
            if !args.is_empty() || last.as_deref() != Some("tag") {
                return Err(syn::Error::new(
                    key.path[key.path.len() - 1].span(),
                    "the one call a key may end with is `tag()`, the tag of a tagged enum (`kind.tag()`)",
                ));
            }
            key.call = true;
        }
    }
    Ok(KeyName::Nested(key))
}

/// `(field = asc, "dotted.path" = desc, ...)`.
pub(crate) fn parse_keys(input: ParseStream) -> syn::Result<Vec<IndexKey>> {
    parse_keys_with(input, parse_key_name)
}

/// `(field = asc, sub.field = desc, kind.tag() = asc, "dotted.path" = desc, ...)`:
/// the keys of `index(...)`.
pub(super) fn parse_index_keys(input: ParseStream) -> syn::Result<Vec<IndexKey>> {
    parse_keys_with(input, parse_index_key_name)
}

fn parse_keys_with(
    input: ParseStream,
    key_name: fn(ParseStream) -> syn::Result<KeyName>,
) -> syn::Result<Vec<IndexKey>> {
    let mut keys = Vec::new();
    while !input.is_empty() {
        let name = key_name(input)?;
        input.parse::<Token![=]>()?;
        let dir = parse_dir(input)?;
        keys.push(IndexKey { name, dir });
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(keys)
}
