//! The index grammar: `index(keys(...), name = "...", unique, sparse, hidden,
//! expire_after = N, partial(...), collation(...))` in `#[document(...)]`, its key lists
//! (also read by `#[reference(sort(...))]`) and its partial filters.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Ident, Lit, LitStr, Token};

use super::collation::{collation, CollationAttr};
use super::keywords::{
    ASC, COLLATION, DEFAULT_LANGUAGE, DESC, EQ, EXISTS, EXPIRE_AFTER, GT, GTE, HASHED, HIDDEN,
    INDEX, INDEX_KEYS, KEYS, LT, LTE, NAME, PARTIAL, PARTIAL_OPS, SPARSE, SPHERE_2D, TEXT, TYPE,
    UNIQUE, WEIGHTS,
};
use super::list::{drain, for_each_nested_key, unknown_key};
use super::value::{
    flag, in_parens, int_value, is_list, parens, parse_written, str_value, Written,
};
use crate::ctxt::Ctxt;
use crate::suggest;

/// The most seconds `expire_after` may hold (the server stores an int32).
const MAX_EXPIRE_AFTER: u64 = i32::MAX as u64;

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

/// A literal in a partial filter.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

/// A partial filter operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Exists,
    Eq,
    Gt,
    Gte,
    Lt,
    Lte,
    Type,
}

impl Op {
    pub fn server_name(self) -> &'static str {
        match self {
            Op::Exists => "$exists",
            Op::Eq => "$eq",
            Op::Gt => "$gt",
            Op::Gte => "$gte",
            Op::Lt => "$lt",
            Op::Lte => "$lte",
            Op::Type => "$type",
        }
    }
}

/// One condition of `partial(...)`.
pub struct PartialCond {
    pub key: KeyName,
    pub test: PartialTest,
}

pub enum PartialTest {
    /// `status = "active"`: equality with a literal.
    Equals(Value),
    /// `age(gt = 18, lte = 65)`.
    Ops(Vec<(Op, Value)>),
}

/// One container `index(...)`.
pub struct IndexAttr {
    /// The `index` keyword, where errors about the whole index point.
    pub span: Span,
    pub keys: Vec<IndexKey>,
    pub name: Option<LitStr>,
    pub unique: bool,
    pub sparse: bool,
    /// `hidden`: built, but not used by the planner.
    pub hidden: bool,
    /// Seconds, with the span of the value.
    pub expire_after: Option<(u64, Span)>,
    pub partial: Vec<PartialCond>,
    /// `collation(locale = "en", strength = 2)`.
    pub collation: Option<CollationAttr>,
    /// `weights(title = 10, ...)` of a text index, each with the span of
    /// its value.
    pub weights: Vec<(KeyName, u32, Span)>,
    /// `default_language = "english"` of a text index.
    pub default_language: Option<LitStr>,
}

/// The most a text index field may weigh (the server refuses more).
const MAX_WEIGHT: u64 = 99_999;

/// `(title = 10, "meta.summary" = 3)`.
fn parse_weights(input: ParseStream) -> syn::Result<Vec<(KeyName, u32, Span)>> {
    let mut weights = Vec::new();
    while !input.is_empty() {
        let name = parse_key_name(input)?;
        input.parse::<Token![=]>()?;
        let int: syn::LitInt = input.parse()?;
        let weight = int
            .base10_parse::<u64>()
            .ok()
            .filter(|w| (1..=MAX_WEIGHT).contains(w))
            .ok_or_else(|| {
                syn::Error::new(
                    int.span(),
                    format!("a text weight is an integer from 1 to {MAX_WEIGHT}"),
                )
            })?;
        weights.push((name, weight as u32, int.span()));
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(weights)
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

fn parse_key_name(input: ParseStream) -> syn::Result<KeyName> {
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
pub(super) fn parse_keys(input: ParseStream) -> syn::Result<Vec<IndexKey>> {
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

/// A literal of a partial filter.
fn parse_partial_value(input: ParseStream) -> syn::Result<Value> {
    let written = parse_written(input);
    let value = match &written {
        Written::Lit {
            negative,
            lit: Lit::Int(int),
            ..
        } => {
            let digits = if *negative {
                format!("-{}", int.base10_digits())
            } else {
                int.base10_digits().to_owned()
            };
            digits.parse::<i64>().ok().map(Value::Int)
        }
        Written::Lit {
            negative,
            lit: Lit::Float(float),
            ..
        } => float
            .base10_parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(|f| Value::Float(if *negative { -f } else { f })),
        Written::Lit {
            negative: false,
            lit: Lit::Str(s),
            ..
        } => Some(Value::Str(s.value())),
        Written::Lit {
            negative: false,
            lit: Lit::Bool(b),
            ..
        } => Some(Value::Bool(b.value)),
        _ => None,
    };
    value.ok_or_else(|| {
        syn::Error::new_spanned(
            written.tokens(),
            "expected a literal: a string, an integer, a float or a bool",
        )
    })
}

/// `(gt = 18, lte = 65)`.
fn parse_ops(content: ParseStream) -> syn::Result<Vec<(Op, Value)>> {
    let mut ops = Vec::new();
    while !content.is_empty() {
        let op_ident = content.call(Ident::parse_any)?;
        let op_name = op_ident.unraw().to_string();
        let op = match op_name.as_str() {
            EXISTS => Op::Exists,
            EQ => Op::Eq,
            GT => Op::Gt,
            GTE => Op::Gte,
            LT => Op::Lt,
            LTE => Op::Lte,
            TYPE => Op::Type,
            _ => {
                return Err(syn::Error::new(
                    op_ident.span(),
                    format!(
                        "unknown partial filter operator `{op_name}`{}",
                        suggest::hint(&op_name, PARTIAL_OPS)
                    ),
                ))
            }
        };
        content.parse::<Token![=]>()?;
        ops.push((op, parse_partial_value(content)?));
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    Ok(ops)
}

/// `(status = "active", email(exists = true), age(gt = 18, lte = 65))`.
fn parse_partial(input: ParseStream) -> syn::Result<Vec<PartialCond>> {
    let mut conds = Vec::new();
    while !input.is_empty() {
        let key = parse_key_name(input)?;
        let test = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            PartialTest::Equals(parse_partial_value(input)?)
        } else if input.peek(syn::token::Paren) {
            let content = parens(input)?;
            let ops = parse_ops(&content);
            drain(&content);
            let ops = ops?;
            if ops.is_empty() {
                return Err(syn::Error::new(
                    key.span(),
                    "expected at least one operator, such as `field(exists = true)`",
                ));
            }
            PartialTest::Ops(ops)
        } else {
            return Err(syn::Error::new(
                key.span(),
                "expected `field = value` or `field(op = value, ...)` in `partial(...)`",
            ));
        };
        conds.push(PartialCond { key, test });
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(conds)
}

/// `index(keys(...), name = "...", unique, sparse, hidden, expire_after = N, partial(...))`.
pub(super) fn index(cx: &Ctxt, meta: &ParseNestedMeta, span: Span) -> Option<IndexAttr> {
    if !is_list(
        cx,
        meta,
        INDEX,
        span,
        "keys(field = asc, other = desc), unique",
    ) {
        return None;
    }
    let mut out = IndexAttr {
        span,
        keys: Vec::new(),
        name: None,
        unique: false,
        sparse: false,
        hidden: false,
        expire_after: None,
        partial: Vec::new(),
        collation: None,
        weights: Vec::new(),
        default_language: None,
    };
    let mut seen_keys = false;
    for_each_nested_key(cx, meta, |inner, name, kspan| match name {
        KEYS => {
            seen_keys = true;
            if let Some(keys) = in_parens(cx, inner, name, kspan, "field = asc", parse_index_keys) {
                if keys.is_empty() {
                    cx.error_at(kspan, "`keys()` is empty: name at least one field");
                }
                out.keys = keys;
            }
        }
        NAME => {
            if let Some(lit) = str_value(cx, inner, name, kspan, "\"by_author\"") {
                if lit.value().is_empty() {
                    cx.error_spanned_by(&lit, "the index name must not be empty");
                }
                out.name = Some(lit);
            }
        }
        UNIQUE => out.unique = flag(cx, inner, name, kspan),
        SPARSE => out.sparse = flag(cx, inner, name, kspan),
        HIDDEN => out.hidden = flag(cx, inner, name, kspan),
        EXPIRE_AFTER => {
            if let Some(secs) = int_value(cx, inner, name, kspan, 1, MAX_EXPIRE_AFTER) {
                out.expire_after = Some(secs);
            }
        }
        PARTIAL => {
            if let Some(conds) =
                in_parens(cx, inner, name, kspan, "status = \"active\"", parse_partial)
            {
                if conds.is_empty() {
                    cx.error_at(kspan, "`partial()` is empty");
                }
                out.partial = conds;
            }
        }
        COLLATION => out.collation = collation(cx, inner, kspan),
        WEIGHTS => {
            if let Some(weights) = in_parens(cx, inner, name, kspan, "title = 10", parse_weights) {
                if weights.is_empty() {
                    cx.error_at(kspan, "`weights()` is empty: `weights(title = 10)`");
                }
                out.weights = weights;
            }
        }
        DEFAULT_LANGUAGE => out.default_language = str_value(cx, inner, name, kspan, "\"english\""),
        _ => unknown_key(cx, INDEX, name, kspan, INDEX_KEYS),
    });
    if !seen_keys {
        cx.error_at(
            span,
            "`index` needs `keys(...)`: `index(keys(field = asc, other = desc))`",
        );
    }
    Some(out)
}
