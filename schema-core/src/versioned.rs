//! What a versioned model stores (see [`versions`](crate::versions)): the
//! field that holds a document's schema version, the model's versions, and
//! the index setup creates on the field. Read by the codec and the model
//! trait, below the upgrade machinery.

use bson::RawDocument;

/// The stored field that holds a versioned model's schema version.
pub const VERSION_FIELD: &str = "schemaVersion";

/// [`VERSION_FIELD`] as a raw document's key.
pub(crate) const VERSION_KEY: &bson::raw::CStr = bson::cstr!("schemaVersion");

/// The index a versioned model's collection gets: [`VERSION_FIELD`], then
/// `_id`, so that a migration reads the documents of each earlier version
/// in `_id` order from where its last batch ended.
pub(crate) fn version_index() -> crate::index::IndexSpec {
    use crate::index::Direction::Asc;
    crate::index::IndexSpec::new(
        vec![(VERSION_FIELD.to_owned(), Asc), ("_id".to_owned(), Asc)],
        crate::index::IndexOrigin::SchemaVersion,
    )
}

/// A versioned model's versions (see [`versions`](crate::versions)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    /// The current shape's version (`schema_version = N`, by default one
    /// more than the earlier shapes named).
    pub current: u32,
    /// The version of the oldest earlier shape (`current` when none is
    /// named).
    pub first: u32,
    /// The earlier shapes' Rust names, oldest first (versions `first` to
    /// `current - 1`).
    pub older: &'static [&'static str],
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
