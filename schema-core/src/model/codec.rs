//! Models to BSON and back, with the checks the server would otherwise make
//! late or the deserializer would make vaguely.
//!
//! - Writing: a document is serialized once, and refused with
//!   [`Error::TooLarge`] before anything is sent when it is over
//!   [`MAX_DOCUMENT_SIZE`], naming its largest top-level field.
//! - Values (an `_id`, a field's value in a filter or an update, an item
//!   pushed) that serde cannot turn into BSON (a `u64` above `i64::MAX`, a
//!   map with keys that are not strings) are [`Error::Serialize`] naming the
//!   field, never a silent `null`.
//! - Reading: a stored document that does not fit the model gives
//!   [`Error::Decode`], naming the collection, the `_id` and the field.

use bson::{Bson, Document as BsonDocument, RawDocument, RawDocumentBuf};
use serde::{de::DeserializeOwned, Serialize};

use crate::error::{id_text, Error, Result};
use crate::model::Document;

/// The largest document MongoDB stores: 16 MiB (16,777,216 bytes) as BSON.
pub const MAX_DOCUMENT_SIZE: usize = 16 * 1024 * 1024;

/// Serializes `doc` once, for sending as it is; refuses one over
/// [`MAX_DOCUMENT_SIZE`] with [`Error::TooLarge`].
pub(crate) fn encode<M: Document>(doc: &M) -> Result<RawDocumentBuf> {
    let mut raw = bson::serialize_to_raw_document_buf(doc)
        .map_err(|source| serialize_error(M::NAME, doc, source))?;
    if let Some(versions) = M::VERSIONS {
        // The derive refuses a field stored under this name.
        raw.append(
            crate::model::schema_version::VERSION_KEY,
            i32::try_from(versions.current).unwrap_or(i32::MAX),
        );
    }
    // The whole document serialized, so its `_id` does too.
    check_size(M::COLLECTION, &raw, || {
        id_to_bson::<M>(doc.id()).unwrap_or_else(|_| Bson::String("(unserializable)".into()))
    })?;
    crate::model::limits::check::<M>(&raw, "nothing was sent")?;
    crate::model::limits::check_sealed::<M>(&raw, "nothing was sent")?;
    Ok(raw)
}

/// Refuses `raw` with [`Error::TooLarge`] when it is over
/// [`MAX_DOCUMENT_SIZE`]: the one place the limit is checked, for a whole
/// document (an insert) and for the smallest document a push would leave
/// (`_id` and the pushed items). `id` is only computed for the error.
pub(crate) fn check_size(
    collection: &'static str,
    raw: &RawDocument,
    id: impl FnOnce() -> Bson,
) -> Result<()> {
    let size = raw.as_bytes().len();
    if size <= MAX_DOCUMENT_SIZE {
        return Ok(());
    }
    let (field, field_size) = largest_field(raw);
    Err(Error::TooLarge {
        collection,
        id: id_text(&id()),
        size,
        limit: MAX_DOCUMENT_SIZE,
        field,
        field_size,
    })
}

/// Serializes one value of field `field` (its stored name or path) of
/// `model`; what serde cannot represent is [`Error::Serialize`] naming them.
pub(crate) fn value_to_bson<T: Serialize + ?Sized>(
    value: &T,
    model: &'static str,
    field: &str,
) -> Result<Bson> {
    bson::serialize_to_bson(value).map_err(|source| field_error(model, field, source))
}

/// A BSON value as a map key: equal values, equal keys (relaxed extended
/// JSON, so an `ObjectId` and a string of its hex stay apart).
pub(crate) fn value_key(value: &Bson) -> String {
    value.clone().into_relaxed_extjson().to_string()
}

/// [`Error::Serialize`] for a value of field `field` of `model`.
pub(crate) fn field_error(model: &'static str, field: &str, source: bson::error::Error) -> Error {
    Error::Serialize {
        model,
        field: Some(field.to_owned()),
        source: Box::new(source),
    }
}

/// Serializes an `_id` of `M` (see [`value_to_bson`]).
pub(crate) fn id_to_bson<M: Document>(id: &M::Id) -> Result<Bson> {
    value_to_bson(id, M::NAME, "_id")
}

/// [`Error::Serialize`] for a whole `value` of `model` whose serialization
/// failed with `source`: serializes it again, this time tracking the path, to
/// name the field (only on the error path).
pub(crate) fn serialize_error<T: Serialize + ?Sized>(
    model: &'static str,
    value: &T,
    source: bson::error::Error,
) -> Error {
    let field = match serde_path_to_error::serialize(value, bson::Serializer::new()) {
        Ok(_) => None,
        Err(e) => Some(e.path().to_string()).filter(|p| p != "."),
    };
    Error::Serialize {
        model,
        field,
        source: Box::new(source),
    }
}

/// The stored name and size (type byte, name and value) of the largest
/// top-level field.
fn largest_field(raw: &RawDocument) -> (String, usize) {
    raw.iter_elements()
        .filter_map(|e| e.ok())
        .map(|e| {
            (
                e.key().as_str().to_owned(),
                1 + e.key().len() + 1 + e.size(),
            )
        })
        .max_by_key(|(_, size)| *size)
        .unwrap_or_default()
}

/// Reads a stored document as `M`; on failure, [`Error::Decode`] names the
/// collection, the `_id` and the field.
pub(crate) fn decode<M: Document>(raw: &RawDocument) -> Result<M> {
    if let Some(versions) = M::VERSIONS {
        match crate::model::schema_version::stored_version(raw) {
            Some(v) if v == versions.current => {}
            Some(v) if v >= versions.first && v < versions.current => return upgrade::<M>(v, raw),
            _ => {
                return Err(Error::unknown_version(
                    M::NAME,
                    M::COLLECTION,
                    raw,
                    M::VERSIONS,
                ))
            }
        }
    }
    decode_as::<M>(raw, M::NAME, M::COLLECTION)
}

/// Whether a stored document is one of a model's: [`check_stored`] of it.
pub(crate) type StoredCheck = fn(&RawDocument) -> Result<()>;

/// Reads the stored document `raw` as `M` (upgrading an earlier version)
/// and checks its bounds, writing nothing: [`Error::OverBound`] when an
/// array or map holds more than its bound, the decode error otherwise.
pub(crate) fn check_stored<M: Document>(raw: &RawDocument) -> Result<()> {
    let current = M::VERSIONS
        .is_none_or(|v| crate::model::schema_version::stored_version(raw) == Some(v.current));
    decode::<M>(raw)?;
    if current {
        crate::model::limits::check::<M>(raw, "it was read as stored")?;
    }
    Ok(())
}

/// The stored document `raw` at the earlier version `from`, upgraded to `M`
/// by its steps; an upgrade that breaks one of `M`'s bounds is refused
/// ([`Error::Upgrade`] naming the document, the field and the bound), as a
/// write of it would be.
fn upgrade<M: Document>(from: u32, raw: &RawDocument) -> Result<M> {
    let upgraded = M::upgrade_stored(from, raw)?;
    if !crate::model::limits::bounded::<M>() {
        return Ok(upgraded);
    }
    let encoded = bson::serialize_to_raw_document_buf(&upgraded)
        .map_err(|source| serialize_error(M::NAME, &upgraded, source))?;
    crate::model::limits::check::<M>(&encoded, "")
        .map_err(|e| refused_upgrade::<M>(from, raw, e))?;
    Ok(upgraded)
}

/// `e`, an error about the upgrade of the stored document `raw` at version
/// `from`: a bound the upgrade breaks ([`Error::OverBound`]) becomes
/// [`Error::Upgrade`] naming the stored document, the field and the bound;
/// any other error is returned as it is.
pub(crate) fn refused_upgrade<M: Document>(from: u32, raw: &RawDocument, e: Error) -> Error {
    match e {
        Error::OverBound {
            field, len, max, ..
        } => Error::Upgrade {
            model: M::NAME,
            collection: M::COLLECTION,
            id: crate::error::raw_id(raw),
            from,
            reason: format!(
                "its upgrade holds {len} items in `{field}`, over its bound of {max}: change the step to keep at most {max}"
            ),
        },
        other => other,
    }
}

/// Reads a stored document of `collection` as a `T` named `name` (a model,
/// or a projection of one); on failure, [`Error::Decode`] as [`decode`].
pub(crate) fn decode_as<T: DeserializeOwned>(
    raw: &RawDocument,
    name: &'static str,
    collection: &'static str,
) -> Result<T> {
    decode_named(raw, raw, name, collection)
}

/// [`decode_as`] of `raw`, a part of the stored document `whole` (a view
/// of it): an error names `whole` by its `_id`.
pub(crate) fn decode_named<T: DeserializeOwned>(
    raw: &RawDocument,
    whole: &RawDocument,
    name: &'static str,
    collection: &'static str,
) -> Result<T> {
    bson::deserialize_from_slice::<T>(raw.as_bytes()).map_err(|source| Error::Decode {
        model: name,
        collection,
        id: crate::error::raw_id(whole),
        field: failing_field::<T>(raw, &source),
        source: Box::new(source),
    })
}

/// [`Error::Decode`] for the stored document `raw` that could not be read
/// as a `T` named `name` at all (malformed BSON).
pub(crate) fn decode_error(
    raw: &RawDocument,
    name: &'static str,
    collection: &'static str,
    source: bson::error::Error,
) -> Error {
    Error::Decode {
        model: name,
        collection,
        id: crate::error::raw_id(raw),
        field: None,
        source: Box::new(source),
    }
}

/// Reads the document again, this time tracking the path, to name the field
/// that failed (only on the error path: the tracking costs time).
fn failing_field<T: DeserializeOwned>(
    raw: &RawDocument,
    first: &bson::error::Error,
) -> Option<String> {
    let doc = BsonDocument::try_from(raw).ok()?;
    let de = bson::Deserializer::new(Bson::Document(doc));
    let path = match serde_path_to_error::deserialize::<_, T>(de) {
        Ok(_) => return None,
        Err(e) => e.path().to_string(),
    };
    let path = (path != ".").then_some(path);
    // A missing field fails at the struct that lacks it: name the field.
    let missing = first
        .message
        .as_deref()
        .and_then(|message| message.strip_prefix("missing field `"))
        .and_then(|rest| rest.split('`').next())
        .map(str::to_owned);
    match (path, missing) {
        (Some(parent), Some(field)) => Some(format!("{parent}.{field}")),
        (None, Some(field)) => Some(field),
        (path, None) => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug)]
    #[serde(rename_all = "camelCase")]
    struct Inner {
        joined_year: i32,
    }

    #[derive(Serialize, Deserialize, Debug)]
    #[serde(rename_all = "camelCase")]
    struct Person {
        #[serde(rename = "_id")]
        id: String,
        name: String,
        tags: Vec<String>,
        inner: Inner,
    }

    impl Document for Person {
        type Id = String;
        type Fields = ();
        const FIELDS: () = ();
        const COLLECTION: &'static str = "people";
        const NAME: &'static str = "Person";
        fn id(&self) -> &String {
            &self.id
        }
        fn indexes() -> Vec<crate::IndexSpec> {
            Vec::new()
        }
        fn relations() -> Vec<crate::Relation> {
            Vec::new()
        }
        fn json_schema() -> BsonDocument {
            BsonDocument::new()
        }
    }

    fn field_of(doc: BsonDocument) -> (String, Option<String>) {
        let raw = RawDocumentBuf::try_from(&doc).unwrap();
        match decode::<Person>(&raw).unwrap_err() {
            Error::Decode { id, field, .. } => (id, field),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_decode_error_names_the_id_and_the_field() {
        let ok = bson::doc! { "_id": "p1", "name": "a", "tags": [], "inner": { "joinedYear": 1 } };
        let raw = RawDocumentBuf::try_from(&ok).unwrap();
        assert_eq!(decode::<Person>(&raw).unwrap().name, "a");

        let wrong = bson::doc! { "_id": "p1", "name": 4, "tags": [], "inner": { "joinedYear": 1 } };
        let raw = RawDocumentBuf::try_from(&wrong).unwrap();
        let message = decode::<Person>(&raw).unwrap_err().to_string();
        assert!(
            message.ends_with("field `name`: invalid type: integer `4`, expected a string"),
            "the field once, then what serde says: {message}"
        );
        assert_eq!(field_of(wrong), ("p1".into(), Some("name".into())));
        let item =
            bson::doc! { "_id": "p2", "name": "a", "tags": ["x", 3], "inner": { "joinedYear": 1 } };
        assert_eq!(field_of(item).1.as_deref(), Some("tags[1]"));
        let nested =
            bson::doc! { "_id": "p3", "name": "a", "tags": [], "inner": { "joinedYear": "1999" } };
        assert_eq!(field_of(nested).1.as_deref(), Some("inner.joinedYear"));
        let missing = bson::doc! { "_id": "p4", "tags": [], "inner": { "joinedYear": 1 } };
        assert_eq!(field_of(missing).1.as_deref(), Some("name"));
        let missing_nested = bson::doc! { "_id": "p5", "name": "a", "tags": [], "inner": {} };
        assert_eq!(
            field_of(missing_nested).1.as_deref(),
            Some("inner.joinedYear")
        );
        // An `_id` of the wrong type is named too, shown as extended JSON.
        let id = bson::doc! { "_id": 7, "name": "a", "tags": [], "inner": { "joinedYear": 1 } };
        assert_eq!(field_of(id), ("7".into(), Some("_id".into())));
    }

    #[test]
    fn a_document_over_16_mib_is_refused_naming_its_largest_field() {
        let big = Person {
            id: "p1".into(),
            name: "x".repeat(MAX_DOCUMENT_SIZE),
            tags: vec!["a".repeat(1000)],
            inner: Inner { joined_year: 1 },
        };
        match encode(&big).unwrap_err() {
            Error::TooLarge {
                collection,
                id,
                size,
                field,
                field_size,
                ..
            } => {
                assert_eq!(
                    (collection, id.as_str(), field.as_str()),
                    ("people", "p1", "name")
                );
                assert!(size > MAX_DOCUMENT_SIZE);
                // type byte + "name\0" + length + bytes + NUL
                assert_eq!(field_size, 1 + 5 + 4 + MAX_DOCUMENT_SIZE + 1);
            }
            other => panic!("{other:?}"),
        }
        let small = Person {
            id: "p2".into(),
            name: "x".into(),
            tags: Vec::new(),
            inner: Inner { joined_year: 1 },
        };
        assert!(encode(&small).is_ok());
    }
}
