//! The elements of a stored document read in one pass over its bytes, for
//! the audit's walk: each key's bytes, its type and its value's bytes, with
//! nothing built; a value as the walk needs it (a sub-document, an array, a
//! string, a value that may be an id, or another value) on request
//! ([`Element::value`]). The rules are bson's own (`RawDocument::iter`): a
//! malformed element ends the document's elements (a key that is not UTF-8,
//! checked by the walk with [`key`], a length past the end, a type the
//! format does not have), and a value that does not parse (a string that is
//! not UTF-8, a boolean other than 0 or 1) is left out, the elements after
//! it still read.

use bson::oid::ObjectId;
use bson::{RawBsonRef, RawDocument};

/// A key's text: `None` when it is not UTF-8, where bson's iterator ends
/// the document's elements.
pub(super) fn key(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}

/// Whether `bytes`, a key, is UTF-8 (as [`key`], faster when ASCII).
pub(super) fn key_ok(bytes: &[u8]) -> bool {
    bytes.is_ascii() || key(bytes).is_some()
}

/// A value, as the walk needs it.
pub(super) enum Value<'a> {
    /// A sub-document.
    Document(&'a RawDocument),
    /// An array (its items are the elements of this document).
    Array(&'a RawDocument),
    /// A string (which may also be an id).
    String(&'a str),
    /// A value of a kind an id can be (an ObjectId, an int or a long).
    Id(RawBsonRef<'a>),
    /// A value encrypted on the client (binary subtype 6, FLE1):
    /// deterministic or not.
    Encrypted(bool),
    /// Null.
    Null,
    /// Any other value.
    Other,
}

/// One element: its key's bytes (not checked: see [`key`]), its type and
/// its value's bytes (their length checked).
#[derive(Debug, Clone, Copy)]
pub(super) struct Element<'a> {
    pub(super) key: &'a [u8],
    pub(super) kind: u8,
    pub(super) bytes: &'a [u8],
}

impl<'a> Element<'a> {
    /// Its value, `None` when it does not parse.
    pub(super) fn value(&self) -> Option<Value<'a>> {
        value(self.kind, self.bytes)
    }
}

/// The elements of one document, in order.
pub(super) struct Elements<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Elements<'a> {
    pub(super) fn of(doc: &'a RawDocument) -> Self {
        Elements {
            bytes: doc.as_bytes(),
            at: 4,
        }
    }
}

/// Four bytes at `at` as a little-endian i32.
fn i32_at(bytes: &[u8], at: usize) -> Option<i32> {
    let four = bytes.get(at..at.checked_add(4)?)?;
    Some(i32::from_le_bytes(four.try_into().ok()?))
}

/// The length of a length-prefixed string at the start of `value` (prefix,
/// bytes and NUL), checked as bson checks it.
fn string_len(value: &[u8]) -> Option<usize> {
    let len = usize::try_from(i32_at(value, 0)?).ok()?.checked_add(4)?;
    (len >= 5 && value.len() >= len && value[len - 1] == 0).then_some(len)
}

/// The length of a sub-document at the start of `value`, checked as bson
/// checks it.
fn document_len(value: &[u8]) -> Option<usize> {
    let len = usize::try_from(i32_at(value, 0)?).ok()?;
    (len >= 5 && value.len() >= len && value[len - 1] == 0).then_some(len)
}

/// The length of a NUL-terminated string at the start of `value`, NUL
/// included.
fn cstring_len(value: &[u8]) -> Option<usize> {
    Some(value.iter().position(|b| *b == 0)? + 1)
}

/// How many bytes the value of type `kind` takes at the start of `rest`;
/// `None` when malformed.
fn value_len(kind: u8, rest: &[u8]) -> Option<usize> {
    let len = match kind {
        0x08 => 1,
        0x10 => 4,
        0x01 | 0x09 | 0x11 | 0x12 => 8,
        0x07 => 12,
        0x13 => 16,
        0x06 | 0x0A | 0x7F | 0xFF => 0,
        0x02 | 0x0D | 0x0E => string_len(rest)?,
        0x03 | 0x04 => document_len(rest)?,
        0x05 => usize::try_from(i32_at(rest, 0)?).ok()?.checked_add(5)?,
        0x0B => {
            // A pattern and its options, each a UTF-8 C string.
            let pattern = cstring_len(rest)?;
            let options = cstring_len(rest.get(pattern..)?)?;
            std::str::from_utf8(&rest[..pattern - 1]).ok()?;
            std::str::from_utf8(&rest[pattern..pattern + options - 1]).ok()?;
            pattern + options
        }
        0x0C => string_len(rest)?.checked_add(12)?,
        0x0F => usize::try_from(i32_at(rest, 0)?).ok()?,
        _ => return None,
    };
    (rest.len() >= len).then_some(len)
}

/// The text of a length-prefixed string (without its NUL), if UTF-8.
fn text(value: &[u8]) -> Option<&str> {
    std::str::from_utf8(value.get(4..value.len().checked_sub(1)?)?).ok()
}

/// The value of type `kind` in `value` (exactly its bytes); `None` when it
/// does not parse.
fn value(kind: u8, value: &[u8]) -> Option<Value<'_>> {
    Some(match kind {
        0x02 => Value::String(text(value)?),
        0x03 => Value::Document(RawDocument::from_bytes(value).ok()?),
        0x04 => Value::Array(RawDocument::from_bytes(value).ok()?),
        0x07 => Value::Id(RawBsonRef::ObjectId(ObjectId::from_bytes(
            value.try_into().ok()?,
        ))),
        0x10 => Value::Id(RawBsonRef::Int32(i32::from_le_bytes(
            value.try_into().ok()?,
        ))),
        0x12 => Value::Id(RawBsonRef::Int64(i64::from_le_bytes(
            value.try_into().ok()?,
        ))),
        0x08 if value[0] > 1 => return None,
        0x0D | 0x0E => {
            text(value)?;
            Value::Other
        }
        0x0C => {
            text(&value[..value.len() - 12])?;
            Value::Other
        }
        0x05 => {
            // The old binary subtype holds its length again inside.
            if value.get(4) == Some(&2) {
                let len = value.len() - 5;
                let inner = usize::try_from(i32_at(value, 5)?).ok()?;
                (len >= 4 && inner.checked_add(4)? == len).then_some(())?;
            }
            match super::encrypted::sealed(value.get(4..)?) {
                Some(deterministic) => Value::Encrypted(deterministic),
                None => Value::Other,
            }
        }
        0x0A => Value::Null,
        0x0F => {
            // Its length, then the code, then the scope.
            if value.len() < 14 {
                return None;
            }
            let code = string_len(&value[4..])?;
            text(&value[4..4 + code])?;
            RawDocument::from_bytes(value.get(4 + code..)?).ok()?;
            Value::Other
        }
        _ => Value::Other,
    })
}

impl<'a> Iterator for Elements<'a> {
    /// The next element. Its key is not checked here: [`key`] checks it,
    /// which a walk only needs for a key it has not seen.
    type Item = Element<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.bytes;
        let kind = *bytes.get(self.at)?;
        if kind == 0 {
            self.at = bytes.len();
            return None;
        }
        let rest = &bytes[self.at + 1..];
        let parsed = cstring_len(rest).and_then(|key_len| {
            let key = &rest[..key_len - 1];
            let tail = &rest[key_len..];
            let len = value_len(kind, tail)?;
            Some((key, key_len, &tail[..len]))
        });
        let Some((key, key_len, bytes_of_value)) = parsed else {
            self.at = bytes.len();
            return None;
        };
        self.at += 1 + key_len + bytes_of_value.len();
        Some(Element {
            key,
            kind,
            bytes: bytes_of_value,
        })
    }
}
