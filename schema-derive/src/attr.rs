//! Parsing of the derive's own attributes: `#[document(...)]` on the
//! container, `#[embed(...)]`, `#[reference(...)]` and `#[many_to_many(...)]`
//! on fields. Every mistake is reported to the [`Ctxt`], spanned on the
//! offending key or value, and parsing goes on so that all of them show up in
//! one build.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseBuffer, ParseStream};
use syn::{Attribute, Ident, Lit, LitStr, Meta, Token, Type};

use crate::ctxt::Ctxt;
use crate::suggest;

// Attribute names.
pub const DOCUMENT: &str = "document";
pub const EMBED: &str = "embed";
pub const REFERENCE: &str = "reference";
pub const MANY_TO_MANY: &str = "many_to_many";

// `#[document(...)]` keys.
pub const COLLECTION: &str = "collection";
pub const CRATE: &str = "crate";
pub const INDEX: &str = "index";
pub const OPEN: &str = "open";

// `index(...)` keys.
pub const KEYS: &str = "keys";
pub const NAME: &str = "name";
pub const UNIQUE: &str = "unique";
pub const SPARSE: &str = "sparse";
pub const EXPIRE_AFTER: &str = "expire_after";
pub const PARTIAL: &str = "partial";

// `partial(field(op = value))` operators.
pub const EXISTS: &str = "exists";
pub const EQ: &str = "eq";
pub const GT: &str = "gt";
pub const GTE: &str = "gte";
pub const LT: &str = "lt";
pub const LTE: &str = "lte";
pub const TYPE: &str = "type";

// `#[embed(...)]` keys.
pub const MAX: &str = "max";
pub const KEEP: &str = "keep";
pub const HISTORY: &str = "history";
pub const UNBOUNDED: &str = "unbounded";

// `#[reference(...)]` keys (with `index`, `unique`).
pub const TO: &str = "to";
pub const SORT: &str = "sort";

// `#[many_to_many(...)]` keys (with `to`, `max`).
pub const TWO_SIDED: &str = "two_sided";
pub const ONE_SIDED: &str = "one_sided";
pub const INVERSE: &str = "inverse";

// Index directions.
pub const ASC: &str = "asc";
pub const DESC: &str = "desc";

// `keep = "..."` values.
pub const NEWEST: &str = "newest";
pub const OLDEST: &str = "oldest";

const DOCUMENT_KEYS: &[&str] = &[COLLECTION, CRATE, INDEX, OPEN];
const INDEX_KEYS: &[&str] = &[KEYS, NAME, UNIQUE, SPARSE, EXPIRE_AFTER, PARTIAL];
const PARTIAL_OPS: &[&str] = &[EXISTS, EQ, GT, GTE, LT, LTE, TYPE];
const EMBED_KEYS: &[&str] = &[MAX, KEEP, HISTORY, UNBOUNDED];
const REFERENCE_KEYS: &[&str] = &[INDEX, UNIQUE, TO, SORT];
const MANY_TO_MANY_KEYS: &[&str] = &[TWO_SIDED, ONE_SIDED, TO, INVERSE, MAX];

/// The most seconds `expire_after` may hold (the server stores an int32).
const MAX_EXPIRE_AFTER: u64 = i32::MAX as u64;

/// An index key direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    Asc,
    Desc,
}

impl Dir {
    pub fn as_i32(self) -> i32 {
        match self {
            Dir::Asc => 1,
            Dir::Desc => -1,
        }
    }
}

/// An index key as written: a Rust field of this struct, or a string literal
/// (a dotted path) passed to the server verbatim.
#[derive(Clone)]
pub enum KeyName {
    Field(Ident),
    Path(LitStr),
}

impl KeyName {
    pub fn span(&self) -> Span {
        match self {
            KeyName::Field(ident) => ident.span(),
            KeyName::Path(lit) => lit.span(),
        }
    }
}

impl ToTokens for KeyName {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            KeyName::Field(ident) => ident.to_tokens(tokens),
            KeyName::Path(lit) => lit.to_tokens(tokens),
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
    /// Seconds, with the span of the value.
    pub expire_after: Option<(u64, Span)>,
    pub partial: Vec<PartialCond>,
}

/// `#[document(...)]`.
#[derive(Default)]
pub struct ContainerAttrs {
    /// Whether an unknown key was reported (a misspelled `collection`, say),
    /// so that its absence is not reported a second time.
    pub unknown_keys: bool,
    pub collection: Option<LitStr>,
    pub krate: Option<syn::Path>,
    pub indexes: Vec<IndexAttr>,
    /// `open`, with its span: the validator admits fields the type does not
    /// declare (at this type's own level only; its sub-documents decide for
    /// themselves).
    pub open: Option<Span>,
}

/// `keep = "newest" | "oldest"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    Newest,
    Oldest,
}

/// `#[embed(...)]`.
pub struct EmbedAttr {
    pub span: Span,
    /// `max = N`.
    pub max: Option<u32>,
    /// Where `N` is written.
    pub max_span: Option<Span>,
    /// `unbounded = "reason"`: the explicit escape hatch.
    pub unbounded: Option<LitStr>,
    pub keep: Option<Keep>,
    pub history: Option<Type>,
}

/// `#[reference(...)]`.
pub struct RefAttr {
    pub span: Span,
    pub index: bool,
    pub unique: bool,
    pub to: Option<Type>,
    pub sort: Option<IndexKey>,
}

/// `#[many_to_many(...)]`.
pub struct LinkAttr {
    pub span: Span,
    pub two_sided: bool,
    pub to: Option<Type>,
    pub inverse: Option<Ident>,
    /// `max = N`; `None` means `DEFAULT_LINK_MAX`.
    pub max: Option<u32>,
    /// Where `N` is written.
    pub max_span: Option<Span>,
}

/// What a field's attribute says about how it is stored.
pub enum FieldKind {
    Plain,
    Embed(EmbedAttr),
    Reference(RefAttr),
    ManyToMany(LinkAttr),
}

impl FieldKind {
    fn attr_name(&self) -> &'static str {
        match self {
            FieldKind::Plain => "",
            FieldKind::Embed(_) => EMBED,
            FieldKind::Reference(_) => REFERENCE,
            FieldKind::ManyToMany(_) => MANY_TO_MANY,
        }
    }
}

fn is_ours(attr: &Attribute) -> bool {
    [DOCUMENT, EMBED, REFERENCE, MANY_TO_MANY]
        .iter()
        .any(|name| attr.path().is_ident(name))
}

/// The attribute this one misspells, when its name is one or two edits from
/// `serde` or one of the derive's own (`#[embd]`, `#[sered]`): the compiler
/// reports it as unknown, and the derive's messages can say what was meant.
pub fn misspelt(attr: &Attribute) -> Option<&'static str> {
    let ident = attr.path().get_ident()?;
    let name = ident.unraw().to_string();
    let known = ["serde", DOCUMENT, EMBED, REFERENCE, MANY_TO_MANY];
    if known.contains(&name.as_str()) {
        return None;
    }
    let meant = suggest::closest(&name, known)?;
    // `serde_as` (serde_with) is three edits from `serde`, and not a typo.
    (suggest::distance(&name, meant) <= 2).then_some(meant)
}

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
fn drain(input: ParseStream) {
    while !input.is_empty() {
        if input.parse::<TokenTree>().is_err() {
            break;
        }
    }
}

/// Runs `f` on each `key ...` of an attribute's list. `#[attr]` with no list
/// runs nothing; a malformed list is reported once.
fn for_each_key(
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
fn for_each_nested_key(
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

fn unknown_key(cx: &Ctxt, attr: &str, name: &str, span: Span, known: &[&str]) {
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
struct SeenKeys {
    names: Vec<String>,
    repeatable: &'static [&'static str],
}

impl SeenKeys {
    /// Keys of which `repeatable` may appear more than once.
    fn repeating(repeatable: &'static [&'static str]) -> Self {
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

/// A flag key (`unique`): no value allowed. Returns true, its value.
fn flag(cx: &Ctxt, meta: &ParseNestedMeta, name: &str, span: Span) -> bool {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        cx.error_at(
            span,
            format!("`{name}` takes no value: write `{name}` alone"),
        );
    }
    true
}

/// The value after `key =`, or an error saying how to write it.
fn value<'a>(
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
enum Written {
    Lit {
        negative: bool,
        lit: Lit,
        tokens: TokenStream,
    },
    Other(TokenStream),
}

impl Written {
    fn tokens(&self) -> &TokenStream {
        match self {
            Written::Lit { tokens, .. } | Written::Other(tokens) => tokens,
        }
    }
}

fn parse_written(input: ParseStream) -> Written {
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
fn int_value(
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
fn str_value(
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
fn type_value(cx: &Ctxt, meta: &ParseNestedMeta, name: &str, span: Span) -> Option<Type> {
    let input = value(cx, meta, name, span, "Type")?;
    match input.parse::<Type>() {
        Ok(ty) => Some(ty),
        Err(err) => {
            cx.syn_error(err);
            None
        }
    }
}

/// `asc`, `desc`, `1` or `-1`.
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
        Written::Other(tokens) => match syn::parse2::<Ident>(tokens.clone()) {
            Ok(ident) if ident == ASC => Some(Dir::Asc),
            Ok(ident) if ident == DESC => Some(Dir::Desc),
            _ => None,
        },
        Written::Lit { .. } => None,
    };
    dir.ok_or_else(|| {
        syn::Error::new_spanned(
            written.tokens(),
            "expected an index direction: `asc` or `desc` (or `1` / `-1`)",
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

fn parens<'a>(input: ParseStream<'a>) -> syn::Result<ParseBuffer<'a>> {
    let content;
    syn::parenthesized!(content in input);
    Ok(content)
}

/// `(field = asc, "dotted.path" = desc, ...)`.
fn parse_keys(input: ParseStream) -> syn::Result<Vec<IndexKey>> {
    let mut keys = Vec::new();
    while !input.is_empty() {
        let name = parse_key_name(input)?;
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

/// Runs a parser over `key(...)`'s parenthesized content; on a syntax error
/// reports it and skips the rest of the group.
fn in_parens<T>(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    name: &str,
    span: Span,
    example: &str,
    parse: impl FnOnce(ParseStream) -> syn::Result<T>,
) -> Option<T> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_at(span, format!("`{name}` takes a list: `{name}({example})`"));
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

/// Checks a collection name as the server would.
fn check_collection(cx: &Ctxt, lit: &LitStr) {
    let name = lit.value();
    if name.is_empty() {
        cx.error_spanned_by(lit, "the collection name must not be empty");
    } else if name.contains('$') {
        cx.error_spanned_by(lit, "a collection name must not contain `$`");
    } else if name.contains('\0') {
        cx.error_spanned_by(
            lit,
            "a collection name must not contain the null character `\\0`",
        );
    } else if name.starts_with("system.") {
        cx.error_spanned_by(
            lit,
            "a collection name must not start with `system.`: that prefix is reserved for the server",
        );
    }
}

/// Parses every `#[document(...)]` on a container. `for_document` is false
/// for `#[derive(Embedded)]`: there `collection` means the type is also a
/// root document, and `index` without it is an error.
pub fn container(cx: &Ctxt, attrs: &[Attribute], for_document: bool) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    let mut seen = SeenKeys::repeating(&[INDEX]);
    for attr in attrs.iter().filter(|a| a.path().is_ident(DOCUMENT)) {
        if let Meta::Path(_) = attr.meta {
            cx.error_spanned_by(attr, "expected `#[document(collection = \"...\")]`");
            continue;
        }
        for_each_key(cx, attr, &mut seen, |meta, name, span| match name {
            COLLECTION => {
                if let Some(lit) = str_value(cx, meta, name, span, "\"posts\"") {
                    check_collection(cx, &lit);
                    out.collection = Some(lit);
                }
            }
            CRATE => {
                if let Some(lit) = str_value(cx, meta, name, span, "\"my_crate::schema_core\"") {
                    match lit.parse::<syn::Path>() {
                        Ok(path) => out.krate = Some(path),
                        Err(_) => cx.error_spanned_by(
                            &lit,
                            "`crate` must be a path, such as `crate = \"my_crate::schema_core\"`",
                        ),
                    }
                }
            }
            INDEX => {
                if let Some(index) = index(cx, meta, span) {
                    out.indexes.push(index);
                }
            }
            OPEN => {
                flag(cx, meta, name, span);
                out.open = Some(span);
            }
            _ => {
                unknown_key(cx, DOCUMENT, name, span, DOCUMENT_KEYS);
                out.unknown_keys = true;
            }
        });
    }
    // On `#[derive(Embedded)]`, `collection` says the type is also a root
    // document (`#[derive(Document, Embedded)]`), whose derive uses the rest.
    if !for_document && out.collection.is_none() {
        if let Some(index) = out.indexes.first() {
            cx.error_at(
                index.span,
                "`index` belongs to a root document: a sub-document is stored inside its parent's collection (add `#[derive(Document)]` and `collection = \"...\"`, or declare the index on the parent)",
            );
        }
    }
    out
}

/// `index(keys(...), name = "...", unique, sparse, expire_after = N, partial(...))`.
fn index(cx: &Ctxt, meta: &ParseNestedMeta, span: Span) -> Option<IndexAttr> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_at(
            span,
            "`index` takes a list: `index(keys(field = asc, other = desc), unique)`",
        );
        return None;
    }
    let mut out = IndexAttr {
        span,
        keys: Vec::new(),
        name: None,
        unique: false,
        sparse: false,
        expire_after: None,
        partial: Vec::new(),
    };
    let mut seen_keys = false;
    for_each_nested_key(cx, meta, |inner, name, kspan| match name {
        KEYS => {
            seen_keys = true;
            if let Some(keys) = in_parens(cx, inner, name, kspan, "field = asc", parse_keys) {
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

/// Parses the derive's attributes on one field. `what` names the field in
/// messages. Duplicated or conflicting attributes are reported on the second.
/// The second value is true when attributes conflicted: checks specific to
/// the kept attribute are then skipped, to report the conflict alone.
pub fn field(cx: &Ctxt, attrs: &[Attribute], what: &str) -> (FieldKind, bool) {
    let mut kind = FieldKind::Plain;
    let mut conflicted = false;
    for attr in attrs.iter().filter(|a| is_ours(a)) {
        let parsed = if attr.path().is_ident(EMBED) {
            FieldKind::Embed(embed(cx, attr))
        } else if attr.path().is_ident(REFERENCE) {
            FieldKind::Reference(reference(cx, attr))
        } else if attr.path().is_ident(MANY_TO_MANY) {
            FieldKind::ManyToMany(many_to_many(cx, attr))
        } else {
            cx.error_spanned_by(
                attr,
                "`#[document(...)]` goes on the struct, not on a field",
            );
            continue;
        };
        if !matches!(kind, FieldKind::Plain) {
            conflicted = true;
        }
        match &kind {
            FieldKind::Plain => kind = parsed,
            first if first.attr_name() == parsed.attr_name() => cx.error_spanned_by(
                attr,
                format!(
                    "duplicate `#[{}]` attribute on `{what}`: merge them into one",
                    parsed.attr_name()
                ),
            ),
            first => cx.error_spanned_by(
                attr,
                format!(
                    "`#[{}]` conflicts with `#[{}]` on `{what}`: a field is stored one way, {}",
                    parsed.attr_name(),
                    first.attr_name(),
                    "embedded (`#[embed]`), as a reference (`#[reference]`) or as an id array (`#[many_to_many]`)"
                ),
            ),
        }
    }
    (kind, conflicted)
}

/// Reports the derive's attributes where they do not belong (a container or
/// a variant); `where_` says where that is.
pub fn reject_field_attrs(cx: &Ctxt, attrs: &[Attribute], where_: &str) {
    for attr in attrs {
        for name in [EMBED, REFERENCE, MANY_TO_MANY] {
            if attr.path().is_ident(name) {
                cx.error_spanned_by(
                    attr,
                    format!("`#[{name}]` goes on a field, not on {where_}"),
                );
            }
        }
    }
}

/// `#[embed(max = N)]`, `#[embed(max = N, keep = "newest", history = T)]`,
/// `#[embed(unbounded = "reason")]`.
fn embed(cx: &Ctxt, attr: &Attribute) -> EmbedAttr {
    let mut out = EmbedAttr {
        span: attr_span(attr),
        max: None,
        max_span: None,
        unbounded: None,
        keep: None,
        history: None,
    };
    let mut keep_span = None;
    let mut history_span = None;
    let mut unbounded_span = None;
    let mut max_given = false;
    let mut unknown = false;
    for_each_key(
        cx,
        attr,
        &mut SeenKeys::default(),
        |meta, name, span| match name {
            MAX => {
                max_given = true;
                (out.max, out.max_span) = max_value(cx, meta, name, span);
            }
            UNBOUNDED => {
                unbounded_span = Some(span);
                if let Some(reason) = str_value(cx, meta, name, span, "\"why this cannot grow\"") {
                    if reason.value().trim().is_empty() {
                        cx.error_spanned_by(
                        &reason,
                        "`unbounded` needs a reason: say why this field cannot grow without bound",
                    );
                    }
                    out.unbounded = Some(reason);
                }
            }
            KEEP => {
                keep_span = Some(span);
                if let Some(lit) = str_value(cx, meta, name, span, "\"newest\"") {
                    match lit.value().as_str() {
                        NEWEST => out.keep = Some(Keep::Newest),
                        OLDEST => out.keep = Some(Keep::Oldest),
                        other => cx.error_spanned_by(
                            &lit,
                            format!("`keep` must be \"newest\" or \"oldest\", not \"{other}\""),
                        ),
                    }
                }
            }
            HISTORY => {
                history_span = Some(span);
                out.history = type_value(cx, meta, name, span);
            }
            _ => {
                unknown_key(cx, EMBED, name, span, EMBED_KEYS);
                unknown = true;
            }
        },
    );
    match (unbounded_span, max_given) {
        (Some(span), true) => {
            cx.error_at(span, "`unbounded` and `max` contradict each other: keep one");
        }
        (Some(_), false) => {
            if let Some(span) = keep_span.or(history_span) {
                cx.error_at(
                    span,
                    "`keep` and `history` apply to a bounded array (`max = N`), not an `unbounded` one",
                );
            }
        }
        (None, _) if max_given || unknown => {}
        (None, _) => cx.error_spanned_by(
            attr,
            "`#[embed]` needs `max = N`, the most items the field may hold: `#[embed(max = 100)]` (or `#[embed(unbounded = \"reason\")]` to opt out explicitly)",
        ),
    }
    if let (Some(span), None) = (history_span, keep_span) {
        cx.error_at(
            span,
            "`history` needs `keep = \"newest\"` or `keep = \"oldest\"`: which items stay embedded",
        );
    }
    out
}

/// `#[reference(index, unique, to = Type, sort(field = desc))]`.
fn reference(cx: &Ctxt, attr: &Attribute) -> RefAttr {
    let mut out = RefAttr {
        span: attr_span(attr),
        index: false,
        unique: false,
        to: None,
        sort: None,
    };
    let mut unknown = false;
    for_each_key(
        cx,
        attr,
        &mut SeenKeys::default(),
        |meta, name, span| match name {
            INDEX => out.index = flag(cx, meta, name, span),
            UNIQUE => out.unique = flag(cx, meta, name, span),
            TO => out.to = type_value(cx, meta, name, span),
            SORT => {
                if let Some(keys) = in_parens(cx, meta, name, span, "at = desc", parse_keys) {
                    let mut keys = keys.into_iter();
                    match (keys.next(), keys.next()) {
                    (Some(key), None) => out.sort = Some(key),
                    (None, _) => cx.error_at(span, "`sort()` is empty: `sort(at = desc)`"),
                    (Some(_), Some(extra)) => cx.error_at(
                        extra.name.span(),
                        "`sort` takes one field; declare a longer compound index with `#[document(index(keys(...)))]`",
                    ),
                }
                }
            }
            _ => {
                unknown_key(cx, REFERENCE, name, span, REFERENCE_KEYS);
                unknown = true;
            }
        },
    );
    if !out.index && !unknown {
        cx.error_spanned_by(
            attr,
            "a reference must be indexed: write `#[reference(index)]`",
        );
    }
    out
}

/// `#[many_to_many(two_sided, to = T, inverse = field, max = N)]` or
/// `#[many_to_many(one_sided, to = T, max = N)]`.
fn many_to_many(cx: &Ctxt, attr: &Attribute) -> LinkAttr {
    let mut out = LinkAttr {
        span: attr_span(attr),
        two_sided: false,
        to: None,
        inverse: None,
        max: None,
        max_span: None,
    };
    let mut two_sided = None;
    let mut one_sided = None;
    let mut inverse_span = None;
    let mut unknown = false;
    for_each_key(
        cx,
        attr,
        &mut SeenKeys::default(),
        |meta, name, span| match name {
            TWO_SIDED | ONE_SIDED => {
                flag(cx, meta, name, span);
                let (this, other, other_name) = if name == TWO_SIDED {
                    (&mut two_sided, one_sided, ONE_SIDED)
                } else {
                    (&mut one_sided, two_sided, TWO_SIDED)
                };
                if other.is_some() {
                    cx.error_at(
                        span,
                        format!("`{name}` contradicts `{other_name}`: keep one"),
                    );
                }
                *this = Some(span);
            }
            TO => out.to = type_value(cx, meta, name, span),
            INVERSE => {
                inverse_span = Some(span);
                if let Some(input) = value(cx, meta, name, span, "field") {
                    match input.call(Ident::parse_any) {
                        Ok(ident) => out.inverse = Some(ident),
                        Err(err) => cx.syn_error(err),
                    }
                }
            }
            MAX => (out.max, out.max_span) = max_value(cx, meta, name, span),
            _ => {
                unknown_key(cx, MANY_TO_MANY, name, span, MANY_TO_MANY_KEYS);
                unknown = true;
            }
        },
    );
    out.two_sided = two_sided.is_some();
    match (two_sided, one_sided) {
        (None, None) if unknown => {}
        (None, None) => cx.error_spanned_by(
            attr,
            "`#[many_to_many]` needs `two_sided` (both models keep an id array, written in one transaction) or `one_sided` (only this model keeps one)",
        ),
        (Some(_), _) if inverse_span.is_none() && !unknown => cx.error_spanned_by(
            attr,
            "`#[many_to_many(two_sided)]` needs `inverse = field`: the id array on the other model that points back here",
        ),
        (None, Some(_)) => {
            if let Some(span) = inverse_span {
                cx.error_at(
                    span,
                    "`inverse` only applies to `two_sided`: a one-sided link has no array on the other model",
                );
            }
        }
        _ => {}
    }
    if out.to.is_none() && !unknown {
        cx.error_spanned_by(
            attr,
            "`#[many_to_many]` needs `to = Model`: the model whose ids the array holds",
        );
    }
    out
}

/// `max = N`, `N` from 1 to `u32::MAX`, with the span of `N`.
fn max_value(
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

/// The span of an attribute's name (`embed` in `#[embed(...)]`).
fn attr_span(attr: &Attribute) -> Span {
    key_ident(attr.path()).1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(src: &str) -> Vec<Attribute> {
        match syn::parse_str::<syn::DeriveInput>(&format!("{src} struct S;")) {
            Ok(input) => input.attrs,
            Err(_) => Vec::new(),
        }
    }

    fn errors(cx: Ctxt) -> String {
        match cx.finish() {
            Ok(()) => String::new(),
            Err(tokens) => tokens.to_string(),
        }
    }

    #[test]
    fn embed_max() {
        let cx = Ctxt::new();
        let (kind, _) = field(&cx, &attrs("#[embed(max = 10)]"), "tags");
        assert!(matches!(
            kind,
            FieldKind::Embed(EmbedAttr { max: Some(10), .. })
        ));
        assert_eq!(errors(cx), "");
    }

    #[test]
    fn embed_errors_are_all_reported() {
        for (src, message) in [
            ("#[embed(max = 0)]", "must be at least 1"),
            ("#[embed(max = -3)]", "must be an integer from 1"),
            ("#[embed(max = \"10\")]", "found a string"),
            ("#[embed(max = 1.5)]", "found a float"),
            ("#[embed]", "needs `max = N`"),
            ("#[embed(mxa = 3)]", "did you mean `max`?"),
            (
                "#[embed(max = 3, keep = \"latest\")]",
                "\\\"newest\\\" or \\\"oldest\\\"",
            ),
            ("#[embed(unbounded = \"\")]", "needs a reason"),
        ] {
            let cx = Ctxt::new();
            field(&cx, &attrs(src), "tags");
            let errs = errors(cx);
            assert!(errs.contains(message), "{src}: {errs}");
        }
    }

    #[test]
    fn index_with_everything() {
        let cx = Ctxt::new();
        let parsed = container(
            &cx,
            &attrs(
                r#"#[document(collection = "events", index(keys(user_id = asc, "meta.at" = -1), name = "by_user", unique, sparse, expire_after = 3600, partial(status = "active", age(gt = 18, lte = 65), email(exists = true))))]"#,
            ),
            true,
        );
        assert_eq!(errors(cx), "");
        assert_eq!(parsed.indexes.len(), 1);
        let index = &parsed.indexes[0];
        assert_eq!(index.keys.len(), 2);
        assert_eq!(index.keys[1].dir, Dir::Desc);
        assert!(index.unique && index.sparse);
        assert_eq!(index.expire_after.map(|(s, _)| s), Some(3600));
        assert_eq!(index.partial.len(), 3);
    }

    #[test]
    fn container_typo() {
        let cx = Ctxt::new();
        container(&cx, &attrs(r#"#[document(colection = "x")]"#), true);
        assert!(errors(cx).contains("did you mean `collection`?"));
    }

    #[test]
    fn many_to_many_rules() {
        let cx = Ctxt::new();
        field(
            &cx,
            &attrs("#[many_to_many(two_sided, to = Course)]"),
            "ids",
        );
        assert!(errors(cx).contains("needs `inverse = field`"));
        let cx = Ctxt::new();
        field(
            &cx,
            &attrs("#[many_to_many(one_sided, to = Course, inverse = x)]"),
            "ids",
        );
        assert!(errors(cx).contains("only applies to `two_sided`"));
    }
}
