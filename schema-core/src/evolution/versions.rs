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
//! use schema_core::Upgrade;
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
//!
//! Upgrading what is stored: [`Repo::upgrade`](crate::Repo::upgrade) one
//! document, [`Repo::migrate`](crate::Repo::migrate) every document at an
//! earlier version (batched, guarded, resumable),
//! [`Schema::migrate`](crate::Schema::migrate) every versioned model of a
//! schema (the schema command's `migrate`), and
//! [`Repo::write_back_upgrades`](crate::Repo::write_back_upgrades) the
//! documents the reads by `_id` upgrade. [`Schema::plan`](crate::Schema::plan)
//! counts the documents per version ([`Plan::versions`](crate::Plan::versions)).

use bson::RawDocument;

pub use crate::evolution::migrate::{MigrateOptions, Progress};
pub use crate::model::schema_version::Versions;
use crate::model::schema_version::VERSION_FIELD;

use crate::error::{Error, Result};
use crate::model::Document;

/// How a document of shape `Old` becomes one of `Self`, the next version:
/// `Err` with a reason when it cannot (the read then fails with
/// [`Error::Upgrade`] naming the document, and nothing is written).
#[diagnostic::on_unimplemented(
    message = "no upgrade from `{Old}` to `{Self}`: each shape in `migrate_from(..)` needs a step to the next",
    label = "`{Self}` cannot be made from a `{Old}`",
    note = "implement `schema_core::Upgrade<{Old}> for {Self}`"
)]
pub trait Upgrade<Old>: Sized {
    /// The next version of `old`.
    fn upgrade(old: Old) -> std::result::Result<Self, String>;
}

/// For generated code: reads `raw` as the earlier shape `V` of `M`.
pub fn decode_older<M: Document, V: Document>(raw: &RawDocument) -> Result<V> {
    crate::model::codec::decode_as::<V>(raw, V::NAME, M::COLLECTION)
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
        id: crate::error::raw_id(raw),
        from,
        reason,
    })
}

/// For generated code: a document at a version the model does not know.
pub fn unknown_version<M: Document>(raw: &RawDocument) -> Error {
    Error::unknown_version(M::NAME, M::COLLECTION, raw, M::VERSIONS)
}

/// For generated code: `V` is an earlier shape of `M` at version `at`,
/// stored in the same collection, naming no earlier shapes of its own, and
/// when it declares a `schema_version` (a model whose own migration is
/// done, kept as the shape of its version), it is `at`.
pub const fn assert_older<M: Document, V: Document>(at: u32) {
    assert!(
        crate::typed::path::same_name(M::COLLECTION, V::COLLECTION),
        "an earlier shape in `migrate_from(..)` is stored in another collection than the model"
    );
    if let Some(own) = V::VERSIONS {
        assert!(
            own.older.is_empty(),
            "an earlier shape in `migrate_from(..)` names earlier shapes of its own: list them all on the current model"
        );
        assert!(
            own.current == at,
            "an earlier shape in `migrate_from(..)` declares a `schema_version` other than its place in the list gives it (the first is `schema_version` 1, or the model's first version, and each next one more)"
        );
    }
}

/// For generated code: the `$jsonSchema` of a versioned model, one branch
/// per version (`anyOf`), each the shape's own schema with its
/// [`VERSION_FIELD`]: the current one requires it, version 1 may lack it
/// (documents written before the model was versioned). A document is
/// accepted when it is a whole document of one of the versions. With no
/// earlier shape named (`schema_version = N` alone), the current one only:
/// setup's tightening plan then counts the documents still at an earlier
/// version, and refuses until they are migrated.
pub fn versioned_schema(
    current: bson::Document,
    versions: Option<Versions>,
    older: &[bson::Document],
) -> bson::Document {
    let Some(versions) = versions else {
        return current;
    };
    let current = with_version(current, versions.current, true);
    if older.is_empty() {
        return current;
    }
    let mut branches = vec![bson::Bson::Document(current)];
    for (i, schema) in older.iter().enumerate() {
        let v = versions
            .first
            .saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
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
    // An earlier shape that declares its own `schema_version` requires the
    // field already: listed once, and not at all for version 1.
    let listed = bson::Bson::from(VERSION_FIELD);
    match schema.get_array_mut("required") {
        Ok(list) => {
            list.retain(|name| *name != listed);
            if required {
                list.push(listed);
            }
        }
        Err(_) if required => {
            schema.insert("required", vec![listed]);
        }
        Err(_) => {}
    }
    schema
}
