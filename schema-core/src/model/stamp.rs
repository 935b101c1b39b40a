//! Optimistic concurrency and timestamps, opt-in per model.
//!
//! `#[document(version)]` keeps an integer version in the field `version`
//! (`#[document(version = "rev")]` names another field; an `i32` or an
//! `i64`, else the model does not compile). Every update helper increments
//! it (`$inc`), and [`Repo::replace`](crate::Repo::replace) checks it: the
//! replacement matches only the stored document with the version the
//! caller read, and stores that version plus one. A writer that lost the
//! race gets [`Error::Conflict`] naming the model, the `_id` and the
//! version it expected, and nothing is written. An update by `_id` checks
//! it on request: `repo.update(&id, update).if_version(v)`.
//!
//! `#[document(timestamps)]` keeps the fields `created_at` and `updated_at`
//! (`bson::DateTime`; stored under their serde names, so
//! `rename_all = "camelCase"` stores `createdAt` and `updatedAt`): inserts
//! set both to now, upserts set both when they insert, every other update
//! and replace helper sets `updated_at`. The time is the client's, to the
//! millisecond.
//!
//! ```
//! use schema_core::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Document, Serialize, Deserialize)]
//! #[serde(rename_all = "camelCase")]
//! #[document(collection = "accounts", version, timestamps)]
//! struct Account {
//!     #[serde(rename = "_id")]
//!     id: String,
//!     balance: i64,
//!     version: i64,
//!     created_at: bson::DateTime,
//!     updated_at: bson::DateTime,
//! }
//!
//! assert_eq!(Account::VERSION.map(|(stored, _)| stored), Some("version"));
//! assert_eq!(Account::TIMESTAMPS, Some(("createdAt", "updatedAt")));
//! ```

use bson::{doc, Bson, Document as BsonDocument, RawDocumentBuf};

use crate::error::{Error, Result};
use crate::model::Document;

// Declared with the `Document` trait that names them, so that `model` does
// not use this module (which uses `model`).
pub use crate::model::{Stamp, VersionType};

impl Stamp {
    /// How the helpers stamp an update of `M`'s documents: what
    /// [`Relation::ManyToMany`](crate::model::Relation::ManyToMany) carries for
    /// its target (the derive writes `Stamp::of::<Course>()`).
    ///
    /// ```
    /// use schema_core::prelude::*;
    /// use schema_core::Stamp;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Document, Serialize, Deserialize)]
    /// #[document(collection = "courses", version)]
    /// struct Course {
    ///     #[serde(rename = "_id")]
    ///     id: String,
    ///     version: i64,
    /// }
    ///
    /// assert_eq!(Stamp::of::<Course>().model(), "Course");
    /// assert_eq!(Stamp::of::<Course>(), Stamp::of::<Course>());
    /// ```
    pub const fn of<M: Document>() -> Self {
        Stamp::new::<M>(updated::<M>)
    }
}

impl VersionType {
    /// `n` as this BSON type (`None` when it does not fit).
    fn bson(self, n: i64) -> Option<Bson> {
        match self {
            VersionType::I32 => i32::try_from(n).ok().map(Bson::Int32),
            VersionType::I64 => Some(Bson::Int64(n)),
        }
    }
}

/// A type that can keep a `#[document(version)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot keep a `#[document(version)]`: the version is an `i64` or an `i32`",
    label = "make this field an `i64` (or an `i32`)"
)]
pub trait VersionField {
    /// Its BSON integer type.
    const TYPE: VersionType;
    /// The value, widened.
    fn to_version(&self) -> i64;
}

impl VersionField for i64 {
    const TYPE: VersionType = VersionType::I64;
    fn to_version(&self) -> i64 {
        *self
    }
}

impl VersionField for i32 {
    const TYPE: VersionType = VersionType::I32;
    fn to_version(&self) -> i64 {
        i64::from(*self)
    }
}

/// A type that can keep a `#[document(timestamps)]` time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot keep a `#[document(timestamps)]` time: it is a `bson::DateTime`",
    label = "make this field a `bson::DateTime`"
)]
pub trait TimestampField {
    /// Checked where the derive names the field.
    const STORED_AS_DATE: ();
}

impl TimestampField for bson::DateTime {
    const STORED_AS_DATE: () = ();
}

/// A document about to be inserted: both timestamps set to now.
pub(crate) fn inserted<M: Document>(raw: RawDocumentBuf) -> Result<RawDocumentBuf> {
    let Some((created, updated)) = M::TIMESTAMPS else {
        return Ok(raw);
    };
    let now = Bson::DateTime(bson::DateTime::now());
    edit::<M>(raw, |doc| {
        doc.insert(created, now.clone());
        doc.insert(updated, now);
        Ok(())
    })
}

/// The version a replacement expects, as the filter condition
/// `(stored name, value)`.
pub(crate) type Expected = Option<(&'static str, Bson)>;

/// A replacement of `doc`: `updated_at` set to now, and the version one more
/// than `doc`'s; returns the condition on the version it replaces.
pub(crate) fn replaced<M: Document>(
    doc: &M,
    raw: RawDocumentBuf,
) -> Result<(RawDocumentBuf, Expected)> {
    let version = M::VERSION.zip(doc.version());
    if version.is_none() && M::TIMESTAMPS.is_none() {
        return Ok((raw, None));
    }
    let mut expected = None;
    let raw = edit::<M>(raw, |stored| {
        if let Some(((name, ty), current)) = version {
            let next = current
                .checked_add(1)
                .and_then(|n| ty.bson(n))
                .ok_or_else(|| overflow::<M>(name, current))?;
            expected = ty.bson(current).map(|v| (name, v));
            stored.insert(name, next);
        }
        if let Some((_, updated)) = M::TIMESTAMPS {
            stored.insert(updated, Bson::DateTime(bson::DateTime::now()));
        }
        Ok(())
    })?;
    Ok((raw, expected))
}

/// What every update helper adds to its update document: `$inc` of the
/// version, `$set` of `updated_at` (unless the update sets it), and on an
/// upsert `$setOnInsert` of `created_at`. An update that changes the version
/// itself is refused: the count would no longer tell writers apart.
pub(crate) fn updated<M: Document>(update: &mut BsonDocument, upsert: bool) -> Result<()> {
    if let Some((name, ty)) = M::VERSION {
        if touches(update, name) {
            return Err(Error::Model(format!(
                "an update of `{}` changes `{name}`, the version the helpers keep: leave it to them; nothing was sent",
                M::NAME
            )));
        }
        add(update, "$inc", name, ty.bson(1).unwrap_or(Bson::Int32(1)));
    }
    if let Some((created, updated)) = M::TIMESTAMPS {
        let now = Bson::DateTime(bson::DateTime::now());
        if !touches(update, updated) {
            add(update, "$set", updated, now.clone());
        }
        if upsert && !touches(update, created) {
            add(update, "$setOnInsert", created, now);
        }
    }
    Ok(())
}

/// Whether any operator of `update` names `path`, a path inside it or a
/// path it is inside.
fn touches(update: &BsonDocument, path: &str) -> bool {
    let related = |key: &str| {
        key == path
            || key
                .strip_prefix(path)
                .is_some_and(|rest| rest.starts_with('.'))
            || path
                .strip_prefix(key)
                .is_some_and(|rest| rest.starts_with('.'))
    };
    update.iter().any(|(op, fields)| match fields {
        Bson::Document(fields) if op.starts_with('$') => fields.keys().any(|k| related(k)),
        _ => related(op),
    })
}

fn add(update: &mut BsonDocument, operator: &str, path: &str, value: Bson) {
    match update.get_mut(operator) {
        Some(Bson::Document(fields)) => {
            fields.insert(path, value);
        }
        _ => {
            update.insert(operator, doc! { path: value });
        }
    }
}

/// `raw` as a document, changed by `change`, encoded again.
fn edit<M: Document>(
    raw: RawDocumentBuf,
    change: impl FnOnce(&mut BsonDocument) -> Result<()>,
) -> Result<RawDocumentBuf> {
    let mut doc = BsonDocument::try_from(raw.as_ref())
        .map_err(|e| Error::Model(format!("cannot read an encoded `{}`: {e}", M::NAME)))?;
    change(&mut doc)?;
    RawDocumentBuf::try_from(&doc).map_err(|source| Error::Serialize {
        model: M::NAME,
        field: None,
        source: Box::new(source),
    })
}

fn overflow<M: Document>(name: &str, current: i64) -> Error {
    Error::Model(format!(
        "the version `{name}` of a `{}` is {current}, the largest its type holds: it cannot be incremented",
        M::NAME
    ))
}
