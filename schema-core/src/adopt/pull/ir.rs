//! What the generated source is made of: Rust types, fields, the
//! sub-document types' bodies, and the numbers written in its comments
//! and bounds.

use std::fmt;

use super::infer::{Kind, Node};

/// The largest `max` an array's items can reach in 16 MiB at their
/// smallest (the derive refuses a larger one).
const MAX_BOUND: u64 = 1_987_591;

/// A Rust type of the generated source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Ty {
    /// A type by name: `String`, `i64`, `DateTime` (imported), a model's.
    Named(String),
    Vec(Box<Ty>),
    Option(Box<Ty>),
}

impl Ty {
    pub(super) fn named(name: &str) -> Ty {
        Ty::Named(name.to_owned())
    }

    /// The type without its `Option`.
    pub(super) fn inner(&self) -> &Ty {
        match self {
            Ty::Option(inner) => inner,
            other => other,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Named(name) => f.write_str(name),
            Ty::Vec(item) => write!(f, "Vec<{item}>"),
            Ty::Option(inner) => write!(f, "Option<{inner}>"),
        }
    }
}

/// One field of a generated struct or variant.
#[derive(Debug, Clone)]
pub(super) struct Field {
    pub(super) stored: String,
    pub(super) rust: String,
    pub(super) ty: Ty,
    /// Missing from some documents: left out when `None`.
    pub(super) skip_none: bool,
    /// `#[embed(..)]`, `#[reference(..)]`, `#[many_to_many(..)]`.
    pub(super) attrs: Vec<String>,
    /// What was seen, one comment line each.
    pub(super) notes: Vec<String>,
}

/// A generated sub-document type's body.
#[derive(Debug, Clone)]
pub(super) enum Body {
    Struct {
        fields: Vec<Field>,
        open: bool,
    },
    /// One variant per tag value; `tag` is the key inside the sub-document
    /// (`#[serde(tag)]`), or `None` when the tag is stored beside it
    /// (`#[serde(untagged)]`).
    Enum {
        tag: Option<String>,
        variants: Vec<Variant>,
    },
}

/// One variant of a polymorphic sub-document.
#[derive(Debug, Clone)]
pub(super) struct Variant {
    pub(super) rust: String,
    pub(super) value: String,
    pub(super) count: u64,
    pub(super) fields: Vec<Field>,
}

/// A `#[derive(Embedded)]` type.
#[derive(Debug, Clone)]
pub(super) struct Sub {
    pub(super) name: String,
    /// Every stored path it stands for.
    pub(super) paths: Vec<String>,
    pub(super) notes: Vec<String>,
    pub(super) body: Body,
}

/// Where a field is: its collection, the type holding it, its path.
pub(super) struct At<'a> {
    pub(super) collection: &'a str,
    pub(super) owner: &'a str,
    pub(super) path: String,
    pub(super) root: bool,
}

/// `n` with thousands separated (`20,000`).
pub(super) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The `max` for arrays seen at most `longest` long: `longest` plus
/// `headroom` percent, rounded up to 1, 2 or 5 times a power of ten.
pub(super) fn bound(longest: u64, headroom: u32) -> u64 {
    let wanted = (u128::from(longest.max(1)) * (100 + u128::from(headroom))).div_ceil(100);
    let mut step: u128 = 1;
    loop {
        for m in [1, 2, 5] {
            if step * m >= wanted {
                return u64::try_from(step * m).unwrap_or(MAX_BOUND).min(MAX_BOUND);
            }
        }
        step *= 10;
    }
}

pub(super) fn scalar(kind: Kind) -> Option<&'static str> {
    Some(match kind {
        Kind::Int32 => "i32",
        Kind::Int64 => "i64",
        Kind::Double => "f64",
        Kind::Decimal => "Decimal128",
        Kind::String => "String",
        Kind::Bool => "bool",
        Kind::Date => "DateTime",
        Kind::ObjectId => "ObjectId",
        Kind::Binary => "Binary",
        Kind::Timestamp => "Timestamp",
        Kind::Regex => "Regex",
        Kind::Encrypted { original, .. } => return scalar(plain_kind(original)?),
        Kind::Document | Kind::Array | Kind::Other(_) => return None,
    })
}

/// The kind of a BSON type byte, for the value an encrypted one holds
/// (`None` for one with no Rust type of its own here: a sub-document or
/// an array, encrypted whole).
pub(super) fn plain_kind(byte: u8) -> Option<Kind> {
    Some(match byte {
        0x01 => Kind::Double,
        0x02 => Kind::String,
        0x05 => Kind::Binary,
        0x07 => Kind::ObjectId,
        0x08 => Kind::Bool,
        0x09 => Kind::Date,
        0x10 => Kind::Int32,
        0x12 => Kind::Int64,
        0x13 => Kind::Decimal,
        _ => return None,
    })
}

/// The Rust type of an id stored as `kind`, when it has one.
pub(super) fn id_type(node: &Node) -> Option<Ty> {
    let kinds: Vec<Kind> = node.kinds().collect();
    match kinds[..] {
        [kind] => scalar(kind).map(Ty::named),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_take_the_headroom_and_round_up() {
        assert_eq!(bound(3, 100), 10);
        assert_eq!(bound(5, 100), 10);
        assert_eq!(bound(9, 100), 20);
        assert_eq!(bound(2, 100), 5);
        assert_eq!(bound(0, 100), 2);
        assert_eq!(bound(10, 0), 10);
        assert_eq!(bound(11, 0), 20);
        assert_eq!(bound(300, 50), 500);
        assert_eq!(bound(1_500_000, 100), MAX_BOUND);
    }

    #[test]
    fn counts_are_grouped() {
        assert_eq!(count(20000), "20,000");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_234_567), "1,234,567");
    }
}
