//! Partial filters: `partial(status = "active", age(gt = 18, lte = 65))`
//! of an index, its conditions, operators and literals.

use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Ident, Lit, Token};

use super::keys::{parse_key_name, KeyName};
use crate::attr::keywords::{EQ, EXISTS, GT, GTE, LT, LTE, PARTIAL_OPS, TYPE};
use crate::attr::list::drain;
use crate::attr::value::{parens, parse_written, Written};
use crate::suggest;

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
pub(super) fn parse_partial(input: ParseStream) -> syn::Result<Vec<PartialCond>> {
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
