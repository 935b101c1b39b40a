//! A typed filter as a change stream's `$match`: the fields of a change's
//! document are under `fullDocument.` (an insert, a replace), the fields an
//! update set under `updateDescription.updatedFields.`.

use bson::{doc, Bson, Document as BsonDocument};

use crate::error::{Error, Result};
use crate::model::Document;
use crate::typed::filter::Filter;

/// The operations a filter is matched against by their document.
const WHOLE: [&str; 2] = ["insert", "replace"];
/// Operations that carry no document: a filter never matches them.
const DOCUMENT_OPS: [&str; 4] = ["insert", "replace", "update", "delete"];

/// `filter` and-ed onto the filter a builder holds so far (its error, if
/// it holds one, kept): what [`Watch::filter`](super::Watch::filter) and
/// [`Consumer::filter`](super::Consumer::filter) do.
pub(super) fn and_filter<M: Document>(
    held: Option<Result<BsonDocument>>,
    filter: Filter<M>,
) -> Result<BsonDocument> {
    match held {
        Some(Ok(before)) => Filter::<M>::from(before).and(filter).into_document(),
        Some(Err(e)) => Err(e),
        None => filter.into_document(),
    }
}

/// The pipeline of a stream of the changes that `filter` matches: inserts
/// and replaces whose document matches, updates whose set fields match,
/// and the events about the collection itself (drop, rename, invalidate),
/// which a consumer always needs. No filter (or `{}`): every change.
pub(super) fn pipeline(filter: Option<BsonDocument>) -> Result<Vec<BsonDocument>> {
    let Some(filter) = filter.filter(|f| !f.is_empty()) else {
        return Ok(Vec::new());
    };
    let mut whole = prefixed(&filter, "fullDocument.")?;
    whole.insert("operationType", doc! { "$in": WHOLE.to_vec() });
    let mut update = prefixed(&filter, "updateDescription.updatedFields.")?;
    update.insert("operationType", "update");
    let collection = doc! { "operationType": { "$nin": DOCUMENT_OPS.to_vec() } };
    Ok(vec![
        doc! { "$match": { "$or": [whole, update, collection] } },
    ])
}

/// `filter` with every field path under `prefix`; `$and`, `$or` and `$nor`
/// followed; another top-level operator (`$expr`, `$text`, `$where`)
/// refused, since its paths cannot be moved.
fn prefixed(filter: &BsonDocument, prefix: &str) -> Result<BsonDocument> {
    let mut out = BsonDocument::new();
    for (key, value) in filter {
        match key.as_str() {
            "$and" | "$or" | "$nor" => {
                let Bson::Array(items) = value else {
                    return Err(refused(key));
                };
                let mut moved = Vec::with_capacity(items.len());
                for item in items {
                    let Bson::Document(item) = item else {
                        return Err(refused(key));
                    };
                    moved.push(Bson::Document(prefixed(item, prefix)?));
                }
                out.insert(key.clone(), moved);
            }
            "$comment" => {
                out.insert(key.clone(), value.clone());
            }
            op if op.starts_with('$') => return Err(refused(op)),
            path => {
                out.insert(format!("{prefix}{path}"), value.clone());
            }
        }
    }
    Ok(out)
}

fn refused(op: &str) -> Error {
    Error::Model(format!(
        "a change stream's filter cannot hold `{op}` at its top level: its field paths \
         cannot be moved under the change's document; filter on fields (combined with \
         `and`, `or`, `not`); nothing was sent"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_move_under_the_document_and_the_update() {
        let filter = doc! { "status": "shipped", "$or": [{ "a.b": 1 }, { "c": { "$gt": 2 } }] };
        let stages = pipeline(Some(filter)).unwrap();
        assert_eq!(
            stages,
            vec![doc! { "$match": { "$or": [
                {
                    "fullDocument.status": "shipped",
                    "$or": [{ "fullDocument.a.b": 1 }, { "fullDocument.c": { "$gt": 2 } }],
                    "operationType": { "$in": ["insert", "replace"] },
                },
                {
                    "updateDescription.updatedFields.status": "shipped",
                    "$or": [
                        { "updateDescription.updatedFields.a.b": 1 },
                        { "updateDescription.updatedFields.c": { "$gt": 2 } },
                    ],
                    "operationType": "update",
                },
                { "operationType": { "$nin": ["insert", "replace", "update", "delete"] } },
            ] } }]
        );
        assert!(pipeline_of(doc! {}).is_empty());
        let err = pipeline(Some(doc! { "$expr": { "$eq": ["$a", 1] } })).unwrap_err();
        assert!(err.to_string().contains("`$expr`"), "{err}");
    }

    fn pipeline_of(filter: BsonDocument) -> Vec<BsonDocument> {
        pipeline(Some(filter)).unwrap()
    }
}
