//! Models that change: the schema versioning pattern. A model names its
//! earlier shapes, oldest first (`#[document(migrate_from(UserV1,
//! UserV2))]`, each a `#[derive(Document)]` on the same collection, so each
//! has its own bounds checked by the same rules), and says how each shape
//! becomes the next ([`Upgrade`]). The current shape is then version
//! `older + 1`: every document the helpers write carries it in
//! [`VERSION_FIELD`], and a document read at an older version (a document
//! without the field is version 1) is decoded as its own shape and upgraded
//! step by step to the current one.
//!
//! ```
//! use schema_core::prelude::*;
//! use schema_core::versions::Upgrade;
//! use serde::{Deserialize, Serialize};
//!
//! /// Version 1: one name.
//! #[derive(Document, Serialize, Deserialize)]
//! #[document(collection = "people")]
//! struct PersonV1 {
//!     #[serde(rename = "_id")]
//!     id: String,
//!     name: String,
//! }
//!
//! /// Version 2: the name split.
//! #[derive(Document, Serialize, Deserialize)]
//! #[document(collection = "people", migrate_from(PersonV1))]
//! struct Person {
//!     #[serde(rename = "_id")]
//!     id: String,
//!     first: String,
//!     last: String,
//! }
//!
//! impl Upgrade<PersonV1> for Person {
//!     fn upgrade(old: PersonV1) -> Result<Self, String> {
//!         let (first, last) = old.name.split_once(' ').ok_or("no space in the name")?;
//!         Ok(Person { id: old.id, first: first.into(), last: last.into() })
//!     }
//! }
//!
//! let versions = Person::VERSIONS.unwrap();
//! assert_eq!(versions.current, 2);
//! assert_eq!(versions.older, ["PersonV1"]);
//! ```
//!
//! A missing step does not compile (`Person: Upgrade<PersonV1>` is not
//! implemented), nor does an earlier shape on another collection.

mod migrate;

pub use migrate::{MigrateOptions, Progress};

use bson::RawDocument;

use crate::error::{Error, Result};
use crate::model::Document;

/// The stored field that holds a versioned model's schema version.
pub const VERSION_FIELD: &str = "schemaVersion";

/// [`VERSION_FIELD`] as a raw document's key.
pub(crate) const VERSION_KEY: &bson::raw::CStr = bson::cstr!("schemaVersion");

/// The index on [`VERSION_FIELD`] a versioned model's collection gets.
pub(crate) fn version_index() -> crate::index::IndexSpec {
    crate::index::IndexSpec::new(
        vec![(VERSION_FIELD.to_owned(), crate::index::Direction::Asc)],
        crate::index::IndexOrigin::SchemaVersion,
    )
}

/// A versioned model's versions (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    /// The current shape's version: one more than the earlier shapes.
    pub current: u32,
    /// The earlier shapes' Rust names, oldest (version 1) first.
    pub older: &'static [&'static str],
}

/// How a document of shape `Old` becomes one of `Self`, the next version:
/// `Err` with a reason when it cannot (the read then fails with
/// [`Error::Upgrade`] naming the document, and nothing is written).
#[diagnostic::on_unimplemented(
    message = "no upgrade from `{Old}` to `{Self}`: each shape in `migrate_from(..)` needs a step to the next",
    label = "`{Self}` cannot be made from a `{Old}`",
    note = "implement `schema_core::versions::Upgrade<{Old}> for {Self}`"
)]
pub trait Upgrade<Old>: Sized {
    /// The next version of `old`.
    fn upgrade(old: Old) -> std::result::Result<Self, String>;
}

/// The version a stored document is at: its [`VERSION_FIELD`], 1 when it
/// has none; `None` when the field holds no whole number.
pub(crate) fn stored_version(raw: &RawDocument) -> Option<u32> {
    match raw.get(VERSION_FIELD) {
        Ok(None) => Some(1),
        Ok(Some(bson::RawBsonRef::Int32(n))) => u32::try_from(n).ok(),
        Ok(Some(bson::RawBsonRef::Int64(n))) => u32::try_from(n).ok(),
        _ => None,
    }
}

/// For generated code: reads `raw` as the earlier shape `V` of `M`.
pub fn decode_older<M: Document, V: Document>(raw: &RawDocument) -> Result<V> {
    crate::codec::decode_as::<V>(raw, V::NAME, M::COLLECTION)
}

/// For generated code: one upgrade step of a document of `M` read at
/// version `from`, [`Error::Upgrade`] when the step refuses.
pub fn step<M: Document, Old, New: Upgrade<Old>>(
    old: Old,
    from: u32,
    raw: &RawDocument,
) -> Result<New> {
    New::upgrade(old).map_err(|reason| Error::Upgrade {
        model: M::NAME,
        collection: M::COLLECTION,
        id: crate::codec::raw_id(raw),
        from,
        reason,
    })
}

/// For generated code: a document at a version the model does not know.
pub fn unknown_version<M: Document>(raw: &RawDocument) -> Error {
    Error::Upgrade {
        model: M::NAME,
        collection: M::COLLECTION,
        id: crate::codec::raw_id(raw),
        from: 0,
        reason: format!(
            "`{VERSION_FIELD}` is not a version of the model (1 to {})",
            M::VERSIONS.map_or(1, |v| v.current)
        ),
    }
}

/// For generated code: `V` is an earlier shape of `M`, stored in the same
/// collection and not versioned itself.
pub const fn assert_older<M: Document, V: Document>() {
    assert!(
        same(M::COLLECTION, V::COLLECTION),
        "an earlier shape in `migrate_from(..)` is stored in another collection than the model"
    );
    assert!(
        V::VERSIONS.is_none(),
        "an earlier shape in `migrate_from(..)` names earlier shapes of its own: list them all on the current model"
    );
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// For generated code: the `$jsonSchema` of a versioned model, one branch
/// per version (`anyOf`), each the shape's own schema with its
/// [`VERSION_FIELD`]: the current one requires it, version 1 may lack it
/// (documents written before the model was versioned). A document is
/// accepted when it is a whole document of one of the versions.
pub fn versioned_schema(
    current: bson::Document,
    version: u32,
    older: &[bson::Document],
) -> bson::Document {
    let mut branches = vec![bson::Bson::Document(with_version(current, version, true))];
    for (i, schema) in older.iter().enumerate() {
        let v = u32::try_from(i + 1).unwrap_or(u32::MAX);
        branches.push(bson::Bson::Document(with_version(schema.clone(), v, v > 1)));
    }
    bson::doc! { "anyOf": branches }
}

/// `schema` with the property `schemaVersion: v` (required when `required`).
fn with_version(mut schema: bson::Document, v: u32, required: bool) -> bson::Document {
    let value = i64::from(v);
    let property = bson::doc! { "bsonType": ["int", "long"], "enum": [value] };
    match schema.get_document_mut("properties") {
        Ok(properties) => {
            properties.insert(VERSION_FIELD, property);
        }
        Err(_) => {
            schema.insert("properties", bson::doc! { VERSION_FIELD: property });
        }
    }
    if required {
        match schema.get_array_mut("required") {
            Ok(list) => list.push(VERSION_FIELD.into()),
            Err(_) => {
                schema.insert("required", vec![bson::Bson::from(VERSION_FIELD)]);
            }
        }
    }
    schema
}
