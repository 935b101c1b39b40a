//! Encrypted fields stored in clear: for each model's `#[encrypt(..)]`
//! paths, the documents holding a value there (at any depth, through
//! arrays) that is neither encrypted (BSON binary subtype 6) nor null, as
//! an older writer or one working around the repository left it. Reads
//! the documents that have the path, their `_id` and that path only, and
//! needs no key: the check is the value's type, never its content.

use bson::spec::BinarySubtype;
use bson::{doc, Bson, RawBsonRef, RawDocument, RawDocumentBuf};
use futures_util::TryStreamExt;
use mongodb::Database;

use crate::error::Result;

/// One encrypted path of a model checked.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClearCheck {
    /// The collection.
    pub collection: &'static str,
    /// The stored path of the encrypted field.
    pub path: String,
    /// How many documents hold a value there.
    pub checked: u64,
    /// The `_id`s of those holding it in clear.
    pub in_clear: Vec<Bson>,
}

impl ClearCheck {
    /// No document holds the field in clear.
    pub fn is_consistent(&self) -> bool {
        self.in_clear.is_empty()
    }
}

/// Checks `path` of `collection`.
pub(super) async fn check(
    db: &Database,
    collection: &'static str,
    path: &str,
) -> Result<ClearCheck> {
    let mut cursor = db
        .collection::<RawDocumentBuf>(collection)
        .find(doc! { path: { "$exists": true } })
        .projection(doc! { "_id": 1, path: 1 })
        .await?;
    let segments: Vec<&str> = path.split('.').collect();
    let mut found = ClearCheck {
        collection,
        path: path.to_owned(),
        checked: 0,
        in_clear: Vec::new(),
    };
    while let Some(raw) = cursor.try_next().await? {
        found.checked += 1;
        if holds_clear(&raw, &segments) {
            let id = raw
                .get("_id")
                .ok()
                .flatten()
                .and_then(|id| Bson::try_from(bson::RawBson::from(id)).ok())
                .unwrap_or(Bson::Null);
            found.in_clear.push(id);
        }
    }
    Ok(found)
}

/// Whether a value at `path` under `doc` (through arrays at any level) is
/// neither encrypted nor null.
fn holds_clear(doc: &RawDocument, path: &[&str]) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    match doc.get(first) {
        Ok(Some(value)) => value_clear(value, rest),
        _ => false,
    }
}

fn value_clear(value: RawBsonRef<'_>, rest: &[&str]) -> bool {
    match value {
        RawBsonRef::Array(items) => items
            .into_iter()
            .flatten()
            .any(|item| value_clear(item, rest)),
        RawBsonRef::Document(sub) if !rest.is_empty() => holds_clear(sub, rest),
        RawBsonRef::Null => false,
        RawBsonRef::Binary(b) if rest.is_empty() => b.subtype != BinarySubtype::Encrypted,
        _ => rest.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{rawdoc, Binary};

    fn sealed() -> Binary {
        Binary {
            subtype: BinarySubtype::Encrypted,
            bytes: vec![1; 40],
        }
    }

    #[test]
    fn only_a_value_neither_encrypted_nor_null_is_clear() {
        assert!(!holds_clear(&rawdoc! { "ssn": sealed() }, &["ssn"]));
        assert!(!holds_clear(&rawdoc! { "ssn": null }, &["ssn"]));
        assert!(holds_clear(&rawdoc! { "ssn": "123" }, &["ssn"]));
        let items = rawdoc! { "items": [ { "card": sealed() }, { "card": 4111 } ] };
        assert!(holds_clear(&items, &["items", "card"]));
        let sealed_items = rawdoc! { "items": [ { "card": sealed() }, {} ] };
        assert!(!holds_clear(&sealed_items, &["items", "card"]));
        // A sub-document encrypted whole is one binary.
        assert!(!holds_clear(&rawdoc! { "address": sealed() }, &["address"]));
        assert!(holds_clear(
            &rawdoc! { "address": { "city": "x" } },
            &["address"]
        ));
    }
}
