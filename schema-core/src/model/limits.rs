//! A model's bounds (`#[embed(max = N)]` on arrays and maps, at any depth)
//! checked on a whole document before it is sent: an insert, a replace, an
//! `insert_many`, a migration's upgraded document and a document upgraded
//! on read are refused with [`Error::OverBound`] naming the document, the
//! field and the bound, as a typed `set` or `push` is, instead of being
//! sent for the validator to refuse (or, for a read, returned over its
//! bound).
//!
//! The bounds are read once per model from its validator's schema
//! (`maxItems`, `maxProperties`): the one place they are declared. Only the
//! paths that lead to a bound are kept, so a model without bounded arrays
//! costs one look at an empty list per document.

use bson::{Bson, Document as BsonDocument, RawBsonRef, RawDocument};

use crate::error::{Error, Result};
use crate::model::Document;

/// What is bounded below one schema node.
#[derive(Debug)]
enum Limit {
    /// A sub-document: the properties that hold a bound below them, and the
    /// tag values that tell this branch of an enum from the others.
    Object {
        tags: Vec<(String, Vec<Bson>)>,
        fields: Vec<(String, Limit)>,
    },
    /// An array (`maxItems`) or a map (`maxProperties`; an enum variant
    /// stored as a map counts its tag, as its schema does), and what each
    /// item or value holds.
    Many {
        map: bool,
        max: Option<u64>,
        each: Option<Box<Limit>>,
    },
    /// An enum: the branches a value may take; a value is over a bound only
    /// when every branch it could be is.
    Either(Vec<Limit>),
}

/// The bounds of `schema`, or `None` when nothing in it is bounded.
fn compile(schema: &BsonDocument) -> Option<Limit> {
    for combinator in ["oneOf", "anyOf"] {
        if let Ok(branches) = schema.get_array(combinator) {
            let compiled: Vec<Option<Limit>> = branches
                .iter()
                .filter_map(Bson::as_document)
                .map(|branch| compile(branch).or_else(|| tags_only(branch)))
                .collect();
            let unbounded = |c: &Option<Limit>| match c {
                None => true,
                Some(Limit::Object { fields, .. }) => fields.is_empty(),
                Some(_) => false,
            };
            // No branch bounded, or one that names no tag and holds no
            // bound (it accepts anything, so the value is fine as it).
            if compiled.iter().all(unbounded) || compiled.iter().any(Option::is_none) {
                return None;
            }
            return Some(Limit::Either(compiled.into_iter().flatten().collect()));
        }
    }
    let types = bson_types(schema);
    let max = |key| {
        schema.get(key).and_then(|v| match v {
            Bson::Int32(n) => u64::try_from(*n).ok(),
            Bson::Int64(n) => u64::try_from(*n).ok(),
            _ => None,
        })
    };
    if types.iter().any(|t| t == "array") {
        let each = schema
            .get_document("items")
            .ok()
            .and_then(compile)
            .map(Box::new);
        let max = max("maxItems");
        return (max.is_some() || each.is_some()).then_some(Limit::Many {
            map: false,
            max,
            each,
        });
    }
    if types.iter().any(|t| t == "object") || schema.contains_key("properties") {
        let map_max = max("maxProperties");
        let values = schema
            .get_document("additionalProperties")
            .ok()
            .and_then(compile)
            .map(Box::new);
        if map_max.is_some() || values.is_some() {
            return Some(Limit::Many {
                map: true,
                max: map_max,
                each: values,
            });
        }
        let fields: Vec<(String, Limit)> = schema
            .get_document("properties")
            .map(|properties| {
                properties
                    .iter()
                    .filter_map(|(name, s)| Some((name.clone(), compile(s.as_document()?)?)))
                    .collect()
            })
            .unwrap_or_default();
        if !fields.is_empty() {
            return Some(Limit::Object {
                tags: tags(schema),
                fields,
            });
        }
    }
    None
}

/// An enum branch without bounds, kept for its tags (so that a value with
/// its tag is known to be that branch, and fine).
fn tags_only(schema: &BsonDocument) -> Option<Limit> {
    let tags = tags(schema);
    (!tags.is_empty()).then_some(Limit::Object {
        tags,
        fields: Vec::new(),
    })
}

/// The required properties whose values an `enum` lists: an enum
/// variant's tag.
fn tags(schema: &BsonDocument) -> Vec<(String, Vec<Bson>)> {
    let required: Vec<&str> = schema
        .get_array("required")
        .map(|r| r.iter().filter_map(Bson::as_str).collect())
        .unwrap_or_default();
    let Ok(properties) = schema.get_document("properties") else {
        return Vec::new();
    };
    required
        .into_iter()
        .filter_map(|name| {
            let values = properties.get_document(name).ok()?.get_array("enum").ok()?;
            Some((name.to_owned(), values.clone()))
        })
        .collect()
}

fn bson_types(schema: &BsonDocument) -> Vec<String> {
    match schema.get("bsonType") {
        Some(Bson::String(t)) => vec![t.clone()],
        Some(Bson::Array(types)) => types
            .iter()
            .filter_map(Bson::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// A bound a value breaks: the path, how many it holds, the bound.
#[derive(Debug, PartialEq)]
struct Over {
    path: String,
    len: u64,
    max: u64,
}

impl Limit {
    /// The first bound `value` (at `path`) breaks, if any.
    fn check(&self, value: RawBsonRef<'_>, path: &str) -> Option<Over> {
        match (self, value) {
            (Limit::Object { fields, .. }, RawBsonRef::Document(doc)) => {
                fields.iter().find_map(|(name, limit)| {
                    let value = doc.get(name).ok()??;
                    limit.check(value, &join(path, name))
                })
            }
            (
                Limit::Many {
                    map: false,
                    max,
                    each,
                },
                RawBsonRef::Array(items),
            ) => {
                let items = items
                    .into_iter()
                    .enumerate()
                    .filter_map(|(i, item)| Some((format!("{path}[{i}]"), item.ok()?)));
                many(path, *max, each.as_deref(), items)
            }
            (
                Limit::Many {
                    map: true,
                    max,
                    each,
                },
                RawBsonRef::Document(entries),
            ) => {
                let entries = entries
                    .iter()
                    .filter_map(|entry| entry.ok())
                    .map(|(key, value)| (join(path, key.as_str()), value));
                many(path, *max, each.as_deref(), entries)
            }
            (Limit::Either(branches), value) => {
                let mut first = None;
                for branch in branches.iter().filter(|b| b.may_be(value)) {
                    match branch.check(value, path) {
                        None => return None,
                        Some(over) => {
                            first.get_or_insert(over);
                        }
                    }
                }
                first
            }
            // Another type than the schema's: the server's validator says so.
            _ => None,
        }
    }

    /// Whether `value` may be this branch of an enum: its type fits and
    /// its tags (if any) hold one of their values.
    fn may_be(&self, value: RawBsonRef<'_>) -> bool {
        match (self, value) {
            (Limit::Object { tags, .. }, RawBsonRef::Document(doc)) => {
                tags.iter().all(|(name, values)| {
                    doc.get(name)
                        .ok()
                        .flatten()
                        .and_then(|v| Bson::try_from(v).ok())
                        .is_some_and(|v| values.iter().any(|listed| same_value(listed, &v)))
                })
            }
            (Limit::Many { map: false, .. }, RawBsonRef::Array(_)) => true,
            (Limit::Many { map: true, .. }, RawBsonRef::Document(_)) => true,
            (Limit::Either(branches), value) => branches.iter().any(|b| b.may_be(value)),
            _ => false,
        }
    }
}

/// The first bound an array's items or a map's entries (`(path, value)`)
/// break: the count against `max`, else the first item over its own.
fn many<'a>(
    path: &str,
    max: Option<u64>,
    each: Option<&Limit>,
    items: impl Iterator<Item = (String, RawBsonRef<'a>)>,
) -> Option<Over> {
    let mut len = 0;
    let mut over = None;
    for (at, item) in items {
        len += 1;
        if let (None, Some(each)) = (&over, each) {
            over = each.check(item, &at);
        }
    }
    match max {
        Some(max) if len > max => Some(Over {
            path: path.to_owned(),
            len,
            max,
        }),
        _ => over,
    }
}

/// Whether two values are equal, an `int` equal to the same `long`.
fn same_value(a: &Bson, b: &Bson) -> bool {
    let int = |v: &Bson| match v {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        _ => None,
    };
    match (int(a), int(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// The bounds of `M`'s current shape, read once from its schema (a model
/// with earlier shapes has one branch per version, the current first).
fn of<M: Document>() -> &'static Option<Limit> {
    crate::model::cache::per_model::<M, Option<Limit>>(|| {
        let schema = M::json_schema();
        let current = match M::VERSIONS {
            Some(v) if !v.older.is_empty() => schema
                .get_array("anyOf")
                .ok()
                .and_then(|branches| branches.first())
                .and_then(Bson::as_document)
                .cloned(),
            _ => Some(schema),
        };
        current.as_ref().and_then(compile)
    })
}

/// Whether `M` has a bound to check anywhere.
pub(crate) fn bounded<M: Document>() -> bool {
    of::<M>().is_some()
}

/// Refuses the document `raw` of `M` with [`Error::OverBound`] when an
/// array or map in it holds more than its bound allows; `doing` says what
/// was refused ("nothing was sent", "the upgrade was refused").
pub(crate) fn check<M: Document>(raw: &RawDocument, doing: &'static str) -> Result<()> {
    let Some(limit) = of::<M>() else {
        return Ok(());
    };
    match limit.check(RawBsonRef::Document(raw), "") {
        None => Ok(()),
        Some(over) => Err(Error::OverBound {
            collection: M::COLLECTION,
            id: crate::error::raw_id(raw),
            field: over.path,
            len: over.len,
            max: over.max,
            outcome: doing,
        }),
    }
}

/// The bounds of `M`'s arrays and maps encrypted whole
/// (`#[encrypt(random)]` beside `#[embed(max = N)]`): the validator sees
/// one ciphertext and cannot count their items, so the document is checked
/// here, before it is sealed; [`Error::OverBound`] naming the first over.
pub(crate) fn check_sealed<M: Document>(raw: &RawDocument, doing: &'static str) -> Result<()> {
    for spec in crate::model::cache::sealed::<M>() {
        let Some(max) = spec.max.map(u64::from) else {
            continue;
        };
        if let Some(len) = longest_at(RawBsonRef::Document(raw), &spec.path).filter(|n| *n > max) {
            return Err(Error::OverBound {
                collection: M::COLLECTION,
                id: crate::error::raw_id(raw),
                field: spec.path.clone(),
                len,
                max,
                outcome: doing,
            });
        }
    }
    Ok(())
}

/// The most items (or entries) an array (or map) at the dotted `path` of
/// `value` holds, through sub-documents and each item of an array on the
/// way; `None` when there is none.
fn longest_at(value: RawBsonRef<'_>, path: &str) -> Option<u64> {
    let (first, rest) = match path.split_once('.') {
        Some((first, rest)) => (first, Some(rest)),
        None => (path, None),
    };
    match value {
        RawBsonRef::Document(doc) => {
            let at = doc.get(first).ok().flatten()?;
            match (rest, at) {
                (Some(rest), at) => longest_at(at, rest),
                (None, RawBsonRef::Array(items)) => Some(items.into_iter().count() as u64),
                (None, RawBsonRef::Document(map)) => Some(map.iter().count() as u64),
                (None, _) => None,
            }
        }
        RawBsonRef::Array(items) => items
            .into_iter()
            .flatten()
            .filter_map(|item| longest_at(item, path))
            .max(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{doc, rawdoc};

    fn over(schema: BsonDocument, value: bson::RawDocumentBuf) -> Option<Over> {
        compile(&schema)?.check(RawBsonRef::Document(&value), "")
    }

    #[test]
    fn arrays_maps_and_nested_items_at_any_depth() {
        let schema = doc! {
            "bsonType": "object",
            "properties": {
                "name": { "bsonType": "string" },
                "tags": { "bsonType": ["array", "null"], "maxItems": 2_i64, "items": { "bsonType": "string" } },
                "lines": { "bsonType": "array", "maxItems": 5_i64, "items": {
                    "bsonType": "object",
                    "properties": { "notes": { "bsonType": "array", "maxItems": 1_i64 } },
                } },
                "scores": { "bsonType": "object", "maxProperties": 2_i64 },
            },
        };
        assert_eq!(
            over(schema.clone(), rawdoc! { "name": "x", "tags": ["a", "b"] }),
            None
        );
        assert_eq!(over(schema.clone(), rawdoc! { "tags": null }), None);
        assert_eq!(
            over(schema.clone(), rawdoc! { "tags": ["a", "b", "c"] }),
            Some(Over {
                path: "tags".into(),
                len: 3,
                max: 2
            })
        );
        assert_eq!(
            over(
                schema.clone(),
                rawdoc! { "lines": [{ "notes": [] }, { "notes": [1, 2] }] }
            ),
            Some(Over {
                path: "lines[1].notes".into(),
                len: 2,
                max: 1
            })
        );
        assert_eq!(
            over(schema, rawdoc! { "scores": { "a": 1, "b": 2, "c": 3 } }),
            Some(Over {
                path: "scores".into(),
                len: 3,
                max: 2
            })
        );
    }

    #[test]
    fn an_enum_value_is_checked_as_the_variant_its_tag_names() {
        let schema = doc! {
            "bsonType": "object",
            "properties": { "kind": { "oneOf": [
                { "bsonType": "object", "required": ["type"], "properties": {
                    "type": { "enum": ["drink"] },
                    "garnishes": { "bsonType": "array", "maxItems": 1_i64 },
                } },
                { "bsonType": "object", "required": ["type"], "properties": {
                    "type": { "enum": ["dish"] },
                    "garnishes": { "bsonType": "array", "maxItems": 3_i64 },
                } },
                { "bsonType": "object", "required": ["type"], "properties": {
                    "type": { "enum": ["other"] },
                } },
            ] } },
        };
        assert_eq!(
            over(
                schema.clone(),
                rawdoc! { "kind": { "type": "drink", "garnishes": [1, 2] } }
            ),
            Some(Over {
                path: "kind.garnishes".into(),
                len: 2,
                max: 1
            })
        );
        assert_eq!(
            over(
                schema.clone(),
                rawdoc! { "kind": { "type": "dish", "garnishes": [1, 2] } }
            ),
            None
        );
        assert_eq!(
            over(
                schema,
                rawdoc! { "kind": { "type": "other", "garnishes": [1, 2] } }
            ),
            None
        );
    }

    #[test]
    fn nothing_bounded_is_nothing_to_check() {
        let schema =
            doc! { "bsonType": "object", "properties": { "name": { "bsonType": "string" } } };
        assert!(compile(&schema).is_none());
    }
}
