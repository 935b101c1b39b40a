//! What a versioned model stores (see [`versions`](crate::evolution::versions)): the
//! field that holds a document's schema version, the model's versions, and
//! the index setup creates on the field. Read by the codec and the model
//! trait, below the upgrade machinery.

use bson::RawDocument;

use crate::error::{raw_id, Error};

/// The stored field that holds a versioned model's schema version.
pub const VERSION_FIELD: &str = "schemaVersion";

/// [`VERSION_FIELD`] as a raw document's key.
pub(crate) const VERSION_KEY: &bson::raw::CStr = bson::cstr!("schemaVersion");

/// The index a versioned model's collection gets: [`VERSION_FIELD`], then
/// `_id`, so that a migration reads the documents of each earlier version
/// in `_id` order from where its last batch ended.
pub(crate) fn version_index() -> crate::model::index::IndexSpec {
    use crate::model::index::Direction::Asc;
    crate::model::index::IndexSpec::new(
        vec![(VERSION_FIELD.to_owned(), Asc), ("_id".to_owned(), Asc)],
        crate::model::index::IndexOrigin::SchemaVersion,
    )
}

/// A versioned model's versions (see `versions`).
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

/// How many documents of `collection` are stored at each version (version,
/// count), oldest first, a document without [`VERSION_FIELD`] counted as
/// version 1 (one `aggregate`, on the index of the field); the documents at
/// `skip` (the current version, for a migration's count of what is left)
/// are not counted.
pub(crate) async fn count_per_version(
    db: &mongodb::Database,
    collection: &str,
    skip: Option<u32>,
) -> mongodb::error::Result<Vec<(u32, u64)>> {
    use bson::{doc, Bson, Document};
    let mut pipeline = Vec::with_capacity(2);
    if let Some(skip) = skip {
        pipeline.push(doc! { "$match": { VERSION_FIELD: { "$ne": skip as i32 } } });
    }
    pipeline.push(doc! { "$group": { "_id": format!("${VERSION_FIELD}"), "n": { "$sum": 1 } } });
    // The driver's cursor, not the crate's: this module sits below them.
    let groups: Vec<Document> = futures_util::TryStreamExt::try_collect(
        db.collection::<Document>(collection)
            .aggregate(pipeline)
            .await?,
    )
    .await?;

    let mut counts: Vec<(u32, u64)> = groups
        .iter()
        .map(|g| {
            // No field (`null`) is version 1; a value that is no version
            // is counted as 0, which no model has.
            let version = match g.get("_id") {
                None | Some(Bson::Null) => 1,
                Some(Bson::Int32(v)) => u32::try_from(*v).unwrap_or(0),
                Some(Bson::Int64(v)) => u32::try_from(*v).unwrap_or(0),
                Some(_) => 0,
            };
            (version, crate::exec::reply::count(g, "n"))
        })
        .collect();
    counts.sort_unstable();
    // Version 1 stored with the field and without it are one version.
    counts.dedup_by(|b, a| {
        let same = a.0 == b.0;
        if same {
            a.1 += b.1;
        }
        same
    });
    Ok(counts)
}

impl Error {
    /// [`Error::Upgrade`] for a document at a version the model does not
    /// know (its schema version field holds no version of `versions`).
    pub(crate) fn unknown_version(
        model: &'static str,
        collection: &'static str,
        raw: &bson::RawDocument,
        versions: Option<Versions>,
    ) -> Error {
        let (first, current) = versions.map_or((1, 1), |v| (v.first, v.current));
        Error::Upgrade {
            model,
            collection,
            id: raw_id(raw),
            from: 0,
            reason: format!(
                "`{VERSION_FIELD}` is not a version of the model ({first} to {current})"
            ),
        }
    }
}
