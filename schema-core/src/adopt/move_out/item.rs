//! One item of a parent's array made into the child it becomes: its own
//! `_id` (or a fresh `ObjectId` when it has none and the child's `_id` is
//! one), the reference to the parent, then the item's other fields, checked
//! by decoding it as the child model and against the model's bounds. An
//! item that does not fit is named by the parent's `_id` and the item's
//! position, never by what it holds.

use bson::oid::ObjectId;
use bson::raw::CStr;
use bson::{Bson, RawBson, RawBsonRef, RawDocumentBuf};

use crate::error::{id_text, Error, Result};
use crate::model::codec;
use crate::model::Document;

/// What makes the items of one parent into children.
pub(super) struct Maker {
    /// The stored path of the array in the parent.
    pub(super) path: &'static str,
    /// The stored name of the reference in the child.
    pub(super) reference: &'static str,
    /// The parent's `_id`.
    pub(super) parent: Bson,
    /// The parent's collection.
    pub(super) collection: &'static str,
    /// Whether an item without `_id` gets a fresh `ObjectId`.
    pub(super) fresh_ids: bool,
}

/// Whether `C`'s `_id` reads an `ObjectId` (an `ObjectId`, a `Bson`, ...):
/// then an item without an `_id` of its own gets a fresh one.
pub(super) fn takes_object_ids<C: Document>() -> bool {
    bson::deserialize_from_bson::<C::Id>(Bson::ObjectId(ObjectId::new())).is_ok()
}

impl Maker {
    /// The child `item` (at `position` of the array as stored now) becomes,
    /// checked: it decodes as `C` and keeps `C`'s bounds.
    pub(super) fn child<C: Document>(
        &self,
        item: RawBsonRef<'_>,
        position: usize,
    ) -> Result<(RawDocumentBuf, C)> {
        let RawBsonRef::Document(fields) = item else {
            return Err(self.refused::<C>(
                position,
                format!("it is a {:?}, not a document", item.element_type()),
            ));
        };
        let unreadable = |_| self.refused::<C>(position, "its BSON is malformed".to_owned());
        let mut child = RawDocumentBuf::new();
        match fields.get("_id").map_err(unreadable)? {
            Some(id) => child.append(cstr("_id")?, id),
            None if self.fresh_ids => child.append(cstr("_id")?, ObjectId::new()),
            None => {
                return Err(Error::Model(format!(
                    "the item at `{}.{position}` of the `{}` document with _id `{}` has no `_id`, and `{}`'s `_id` is not an ObjectId a fresh one could be made of: give the items an `_id` first, or make `{}`'s `_id` an ObjectId; nothing of this batch was written",
                    self.path,
                    self.collection,
                    id_text(&self.parent),
                    C::NAME,
                    C::NAME
                )))
            }
        }
        let parent = RawBson::try_from(self.parent.clone()).map_err(unreadable)?;
        child.append(cstr(self.reference)?, parent);
        for element in fields.iter_elements() {
            let element = element.map_err(unreadable)?;
            let key = element.key();
            if key.as_str() != "_id" && key.as_str() != self.reference {
                child.append(key, element.value().map_err(unreadable)?);
            }
        }
        let decoded = match codec::decode::<C>(&child) {
            Ok(decoded) => decoded,
            Err(Error::Decode { field, source, .. }) => {
                let at = field.map_or_else(String::new, |f| format!(" at `{f}`"));
                return Err(self.refused::<C>(position, format!("{}{at}", redacted(&source))));
            }
            Err(other) => return Err(other),
        };
        if let Err(Error::OverBound {
            field, len, max, ..
        }) = crate::model::limits::check::<C>(&child, "")
        {
            return Err(self.refused::<C>(
                position,
                format!("its `{field}` holds {len} items, over its bound of {max}"),
            ));
        }
        Ok((child, decoded))
    }

    /// [`Error::Decode`] for the item at `position`: the parent's
    /// collection and `_id`, the item's path, `why` (never a stored value).
    fn refused<C: Document>(&self, position: usize, why: String) -> Error {
        let source = <bson::error::Error as serde::de::Error>::custom(format!(
            "the item does not make a `{}`: {why}; nothing of its batch was written",
            C::NAME
        ));
        Error::Decode {
            model: C::NAME,
            collection: self.collection,
            id: id_text(&self.parent),
            field: Some(format!("{}.{position}", self.path)),
            source: Box::new(source),
        }
    }
}

/// A stored name as a BSON key (a name with a NUL byte is refused).
fn cstr(name: &str) -> Result<&CStr> {
    <&CStr>::try_from(name).map_err(|_| {
        Error::Model(format!(
            "the stored name `{}` holds a NUL byte",
            name.replace('\0', "\\0")
        ))
    })
}

/// What the deserializer said, without the stored values it quotes
/// (`invalid type: string "hello", expected i32` becomes `invalid type:
/// string, expected i32`): what comes before `, expected` loses its quoted
/// and back-quoted parts, unless it names a field.
pub(super) fn redacted(source: &bson::error::Error) -> String {
    let message = source.message.as_deref().unwrap_or_default();
    let names_a_field = ["missing field", "duplicate field", "unknown field"]
        .iter()
        .any(|p| message.starts_with(p));
    if message.is_empty() {
        return "it does not decode".to_owned();
    }
    if names_a_field {
        return message.to_owned();
    }
    let (head, tail) = match message.find(", expected") {
        Some(at) => message.split_at(at),
        None => (message, ""),
    };
    let mut out = String::with_capacity(message.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for ch in head.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if ch == '\\' && q == '"' {
                    escaped = true;
                } else if ch == q {
                    quote = None;
                }
            }
            None if ch == '"' || ch == '`' => {
                quote = Some(ch);
                if out.ends_with(' ') {
                    out.pop();
                }
            }
            None => out.push(ch),
        }
    }
    out.push_str(tail);
    out
}

#[cfg(test)]
mod tests {
    use super::redacted;

    fn err(message: &str) -> bson::error::Error {
        <bson::error::Error as serde::de::Error>::custom(message)
    }

    #[test]
    fn stored_values_are_left_out() {
        for (said, kept) in [
            (
                r#"invalid type: string "se\"cret", expected i32"#,
                "invalid type: string, expected i32",
            ),
            (
                "invalid value: integer `-7`, expected u32",
                "invalid value: integer, expected u32",
            ),
            (
                "unknown variant `secret`, expected one of `a`, `b`",
                "unknown variant, expected one of `a`, `b`",
            ),
            ("missing field `text`", "missing field `text`"),
            ("", "it does not decode"),
        ] {
            assert_eq!(redacted(&err(said)), kept);
        }
    }
}
