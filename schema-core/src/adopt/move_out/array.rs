//! What is left of one parent's array: its length and a slice of it from
//! the front or the end, read with one `aggregate` (`$size` and `$slice`,
//! so only the slice travels), in the caller's transaction.

use bson::{doc, Bson, Document as BsonDocument, RawArrayBuf, RawDocumentBuf};
use mongodb::{ClientSession, Database};

use crate::error::{Error, Result};

/// A parent's array as read.
pub(super) enum Found {
    /// No such parent.
    NoParent,
    /// The path holds no array: the `$type` of what it holds (`missing`,
    /// `null`, `string`, ...).
    NotAnArray(String),
    /// The array's length, and the slice asked for.
    Items { len: usize, items: RawArrayBuf },
}

/// The array at `path` of the parent `parent` of `collection`: its length
/// and its first `slice` items (its last `-slice` when negative; all of
/// them with `None`).
pub(super) async fn read(
    db: &Database,
    session: &mut ClientSession,
    collection: &'static str,
    path: &str,
    parent: &Bson,
    slice: Option<i32>,
) -> Result<Found> {
    let array = format!("${path}");
    let items = match slice {
        Some(n) => Bson::Document(doc! { "$slice": [&array, n] }),
        None => Bson::String(array.clone()),
    };
    let parents = db.collection::<BsonDocument>(collection);
    let read = parents.aggregate([
        doc! { "$match": { "_id": parent.clone() } },
        doc! { "$project": {
            "_id": 0,
            "kind": { "$type": &array },
            "len": { "$cond": [{ "$isArray": &array }, { "$size": &array }, -1] },
            "items": { "$cond": [{ "$isArray": &array }, items, []] },
        } },
    ]);
    let rows: Vec<RawDocumentBuf> = crate::exec::cursor::collect_aggregate(read, Some(session))
        .await
        .map_err(|e| Error::from_server(e, "read the array of", collection))?;
    let Some(row) = rows.first() else {
        return Ok(Found::NoParent);
    };
    let malformed = |_| {
        Error::Model(format!(
            "the server's reply to the read of `{collection}.{path}` was malformed"
        ))
    };
    let Ok(len) = usize::try_from(row.get_i32("len").map_err(malformed)?) else {
        return Ok(Found::NotAnArray(
            row.get_str("kind").unwrap_or("unknown").to_owned(),
        ));
    };
    let items = row.get_array("items").map_err(malformed)?.to_owned();
    Ok(Found::Items { len, items })
}
