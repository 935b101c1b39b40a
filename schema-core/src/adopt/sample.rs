//! How adoption reads a database: its collections by name, and each one's
//! documents as raw BSON, through `$sample` or whole, reading only.

use bson::{doc, RawDocumentBuf};
use mongodb::{Cursor, Database};

use crate::error::{Error, Result};

/// The collections of `db` in name order (views and `system.*` left out);
/// [`Error::NoCollections`] when there is none, naming the databases the
/// server lists: an audit or a pull of nothing (a misspelled name) would
/// otherwise pass as a database with nothing to report.
pub(crate) async fn collections(db: &Database) -> Result<Vec<String>> {
    let mut names = db
        .list_collection_names()
        .filter(doc! { "type": "collection" })
        .await
        .map_err(|e| Error::from_server(e, "list the collections of", db.name()))?;
    names.retain(|n| !n.starts_with("system."));
    names.sort();
    if names.is_empty() {
        // The databases this user may read (`authorizedDatabases`), so a
        // user without the right to list them all still gets a list; none
        // when even that is refused: the error is about `db` either way.
        let mut existing = db
            .client()
            .list_database_names()
            .authorized_databases(true)
            .await
            .unwrap_or_default();
        existing.retain(|n| !matches!(n.as_str(), "admin" | "config" | "local") && n != db.name());
        existing.sort();
        return Err(Error::NoCollections {
            database: db.name().to_owned(),
            existing,
        });
    }
    Ok(names)
}

/// The documents of collection `name`: `sample` of them through `$sample`
/// (at least one), or every one when `full_scan`.
pub(crate) async fn documents(
    db: &Database,
    name: &str,
    sample: u32,
    full_scan: bool,
) -> Result<Cursor<RawDocumentBuf>> {
    let coll = db.collection::<RawDocumentBuf>(name);
    let refused = |e| Error::from_server(e, "read", name);
    if full_scan {
        coll.find(doc! {}).await.map_err(refused)
    } else {
        let sample = doc! { "$sample": { "size": i64::from(sample.max(1)) } };
        coll.aggregate([sample])
            .with_type::<RawDocumentBuf>()
            .await
            .map_err(refused)
    }
}
