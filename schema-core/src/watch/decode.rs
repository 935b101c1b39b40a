//! A raw change event read as a [`Change`] of the model: the document
//! decoded (and upgraded) as reads decode it, an error naming the `_id`
//! without any stored value otherwise.

use bson::{Bson, Document as BsonDocument, RawDocument};

use super::Change;
use crate::error::{ChangeError, Error, Result};
use crate::model::codec;
use crate::model::Document;

/// The change `raw` (a change stream event) of model `M`.
pub(super) fn change<M: Document>(raw: &RawDocument) -> Result<Change<M>> {
    let operation = raw.get_str("operationType").unwrap_or("(none)");
    let change = match operation {
        "insert" => Change::Insert(document::<M>(raw, operation)?),
        "replace" => Change::Replace(document::<M>(raw, operation)?),
        "update" => {
            let (changed, removed) = description(raw);
            let full = match raw.get_document("fullDocument") {
                Ok(full) => Some(decode::<M>(full, raw, operation)?),
                Err(_) => None,
            };
            Change::Update {
                id: id::<M>(raw, operation)?,
                changed,
                removed,
                full,
                before: before::<M>(raw, operation)?,
            }
        }
        "delete" => Change::Delete {
            id: id::<M>(raw, operation)?,
            before: before::<M>(raw, operation)?,
        },
        "drop" => Change::Dropped,
        "rename" => Change::Renamed {
            to: namespace(raw.get_document("to").ok()),
        },
        "invalidate" => Change::Invalidate,
        other => Change::Other {
            operation: other.to_owned(),
        },
    };
    Ok(change)
}

/// The `fullDocument` of an insert or a replace, as `M`.
fn document<M: Document>(raw: &RawDocument, operation: &str) -> Result<M> {
    match raw.get_document("fullDocument") {
        Ok(full) => decode::<M>(full, raw, operation),
        Err(_) => Err(undecodable::<M>(
            raw,
            operation,
            "the change holds no document".into(),
        )),
    }
}

/// `full`, the document of the change `raw`, read as `M` by the reads' own
/// decoding (an earlier version upgraded); an error keeps the field's path
/// and drops what the deserializer or an upgrade step quoted.
fn decode<M: Document>(full: &RawDocument, raw: &RawDocument, operation: &str) -> Result<M> {
    codec::decode::<M>(full).map_err(|e| {
        let why = match e {
            Error::Decode {
                field: Some(field), ..
            } => format!("its field `{field}` does not fit the model"),
            Error::Decode { field: None, .. } => "it does not fit the model".to_owned(),
            Error::Upgrade { from: 0, .. } => {
                "it is stored at a version the model does not know".to_owned()
            }
            Error::Upgrade { from, .. } => {
                format!("its upgrade from version {from} was refused")
            }
            _ => "it could not be read".to_owned(),
        };
        undecodable::<M>(raw, operation, why)
    })
}

/// The pre-image of the change `raw` (`fullDocumentBeforeChange`), as `M`,
/// when it carries one.
fn before<M: Document>(raw: &RawDocument, operation: &str) -> Result<Option<M>> {
    let Ok(before) = raw.get_document("fullDocumentBeforeChange") else {
        return Ok(None);
    };
    match decode::<M>(before, raw, operation) {
        Ok(before) => Ok(Some(before)),
        Err(Error::Change(mut e)) => {
            if let ChangeError::Undecodable { why, .. } = &mut *e {
                *why = format!("its version before the change: {why}");
            }
            Err(Error::Change(e))
        }
        Err(e) => Err(e),
    }
}

/// The `_id` of the changed document, as `M::Id`.
fn id<M: Document>(raw: &RawDocument, operation: &str) -> Result<M::Id> {
    let id = raw
        .get_document("documentKey")
        .ok()
        .and_then(|key| key.get("_id").ok().flatten())
        .and_then(|id| Bson::try_from(bson::RawBson::from(id)).ok());
    let Some(id) = id else {
        return Err(undecodable::<M>(raw, operation, "it names no `_id`".into()));
    };
    bson::deserialize_from_bson(id)
        .map_err(|_| undecodable::<M>(raw, operation, "its `_id` does not fit the model".into()))
}

/// The fields an update set (by stored path) and those it removed.
fn description(raw: &RawDocument) -> (BsonDocument, Vec<String>) {
    let Ok(description) = raw.get_document("updateDescription") else {
        return (BsonDocument::new(), Vec::new());
    };
    let changed = description
        .get_document("updatedFields")
        .ok()
        .and_then(|fields| BsonDocument::try_from(fields).ok())
        .unwrap_or_default();
    let removed = description
        .get_array("removedFields")
        .map(|fields| {
            fields
                .into_iter()
                .filter_map(|f| f.ok().and_then(|f| f.as_str().map(str::to_owned)))
                .collect()
        })
        .unwrap_or_default();
    (changed, removed)
}

/// `db.coll` of a namespace document.
fn namespace(ns: Option<&RawDocument>) -> String {
    let part = |key| ns.and_then(|ns| ns.get_str(key).ok()).unwrap_or("");
    format!("{}.{}", part("db"), part("coll"))
}

/// [`ChangeError::Undecodable`] for the change `raw`.
fn undecodable<M: Document>(raw: &RawDocument, operation: &str, why: String) -> Error {
    let id = match raw.get_document("documentKey") {
        Ok(key) => crate::error::raw_id(key),
        Err(_) => "(none)".to_owned(),
    };
    Error::Change(Box::new(ChangeError::Undecodable {
        model: M::NAME,
        collection: M::COLLECTION,
        id,
        operation: operation.to_owned(),
        why,
    }))
}
