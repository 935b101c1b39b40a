//! The bounded push: a push of items into a bounded array with the guard
//! that lets it match only while the array has room ([`BoundedPush`]), the
//! one place that builds it for [`Embed::push`](crate::Embed) and for the
//! push of a typed [`Update`](crate::Update).

use std::collections::HashSet;

use bson::{doc, Bson, Document as BsonDocument};
use serde::ser::SerializeMap;
use serde::Serialize;

use crate::error::{id_text, Error, Result};
use crate::model::bounded::EmbedArray;
use crate::model::codec;
use crate::model::Document;
use crate::typed::field::EmbedField;

/// Refuses, before anything is sent, `items` that alone would take the
/// document over 16 MiB: the smallest document the push could leave,
/// `{_id, <path>: items}`, goes through the insert's size check.
pub(crate) fn check_push_size<M: Document>(id: &Bson, path: &str, items: &Bson) -> Result<()> {
    let smallest = Probe(&[("_id", id), (path, items)]);
    let raw = bson::serialize_to_raw_document_buf(&smallest)
        .map_err(|e| codec::field_error(M::NAME, path, e))?;
    codec::check_size(M::COLLECTION, &raw, || id.clone())
}

/// A push of `items` into a bounded array, with the guard that lets it match
/// only while the array has room: the one place that builds it, for
/// [`Embed::push`] and for the push of a typed [`Update`](crate::Update).
#[derive(Debug, Clone)]
pub(crate) struct BoundedPush {
    pub(crate) path: &'static str,
    max: u32,
    set: bool,
    pub(crate) nullable: bool,
    /// Distinct (compared as encoded BSON) for a set.
    items: Vec<Bson>,
}

impl BoundedPush {
    /// A push into `field` (a set's items without repeats, in their first order).
    pub(crate) fn new<M, C: EmbedArray>(
        field: &EmbedField<M, C>,
        items: Vec<Bson>,
    ) -> std::result::Result<Self, bson::error::Error> {
        let mut push = BoundedPush {
            path: field.name(),
            max: field.max(),
            set: C::SET,
            nullable: C::NULLABLE,
            items,
        };
        push.dedupe()?;
        Ok(push)
    }

    /// Adds `push` to `list`, into the push of the same array if there is
    /// one (its guard then counts both).
    pub(crate) fn merge_into(list: &mut Vec<Self>, push: Self) {
        match list.iter_mut().find(|p| p.path == push.path) {
            Some(held) => {
                held.items.extend(push.items);
                // Each was encoded alone already, so this cannot fail.
                let _ = held.dedupe();
            }
            None => list.push(push),
        }
    }

    fn dedupe(&mut self) -> std::result::Result<(), bson::error::Error> {
        if !self.set {
            return Ok(());
        }
        let mut seen = HashSet::with_capacity(self.items.len());
        let mut out = Vec::with_capacity(self.items.len());
        for item in self.items.drain(..) {
            if seen.insert(bson::serialize_to_vec(&Probe(&[("", &item)]))?) {
                out.push(item);
            }
        }
        self.items = out;
        Ok(())
    }

    fn count(&self) -> u32 {
        u32::try_from(self.items.len()).unwrap_or(u32::MAX)
    }

    /// Whether it pushes nothing.
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// More items than the array may ever hold.
    pub(crate) fn too_many(&self) -> bool {
        self.count() > self.max
    }

    /// `(guard, operator, value)`: the filter conditions under which the
    /// array has room, and the push as `{operator: {path: value}}`.
    ///
    /// A list: the item at index `max - count` is absent
    /// (`{"tags.9": {$exists: false}}` for one item and `max = 10`), then
    /// `$push`. A set: `$expr` (stored size + size of `$setDifference(items,
    /// stored)` <= `max`), then `$addToSet`, which stores only the new ones.
    pub(crate) fn guarded(&self) -> (BsonDocument, &'static str, Bson) {
        let (name, max) = (self.path, self.max);
        let items = Bson::Array(self.items.clone());
        if self.too_many() {
            // Never room: matches nothing.
            return (doc! { name: { "$in": [] } }, "$push", items);
        }
        if self.set {
            // Room for the items not held yet; `$addToSet` stores only those.
            let stored = doc! { "$ifNull": [format!("${name}"), []] };
            let new = doc! { "$setDifference": [{ "$literal": items.clone() }, stored.clone()] };
            let size = doc! { "$add": [{ "$size": stored }, { "$size": new }] };
            (
                doc! { "$expr": { "$lte": [size, i64::from(max)] } },
                "$addToSet",
                Bson::Document(doc! { "$each": items }),
            )
        } else {
            // Room for `count` more: the item at index `max - count` is absent.
            let mut guard = BsonDocument::new();
            guard.insert(
                format!("{name}.{}", max - self.count()),
                doc! { "$exists": false },
            );
            let value = match items {
                Bson::Array(mut one) if one.len() == 1 => one.pop().unwrap_or(Bson::Null),
                items => Bson::Document(doc! { "$each": items }),
            };
            (guard, "$push", value)
        }
    }

    /// Whether `stored` (the document as it is now) has no room for it.
    pub(crate) fn is_full(&self, stored: &BsonDocument) -> bool {
        let held: &[Bson] = match lookup(stored, self.path) {
            Some(Bson::Array(held)) => held,
            _ => &[],
        };
        let new = if self.set {
            self.items
                .iter()
                .filter(|item| !held.contains(item))
                .count()
        } else {
            self.items.len()
        };
        held.len() + new > self.max as usize
    }

    /// [`Error::EmbedFull`] for document `id` of `collection`.
    pub(crate) fn full(&self, collection: &'static str, id: &Bson) -> Error {
        Error::EmbedFull {
            collection,
            id: id_text(id),
            field: self.path,
            max: self.max,
        }
    }

    /// [`check_push_size`] of its items.
    pub(crate) fn check_size<M: Document>(&self, id: &Bson) -> Result<()> {
        check_push_size::<M>(id, self.path, &Bson::Array(self.items.clone()))
    }
}

/// The value at dotted `path` of `doc`.
fn lookup<'a>(doc: &'a BsonDocument, path: &str) -> Option<&'a Bson> {
    let mut parts = path.split('.');
    let mut value = doc.get(parts.next()?)?;
    for part in parts {
        value = value.as_document()?.get(part)?;
    }
    Some(value)
}

/// A document of borrowed fields, serialized in order without copying them:
/// what a push would store, for measuring and comparing.
struct Probe<'a>(&'a [(&'a str, &'a Bson)]);

impl Serialize for Probe<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}
