//! Shard keys: how a model's collection is spread over the shards of a
//! sharded cluster (a mongos in front of replica sets; Atlas included).
//!
//! `#[document(shard_key(room_id, n))]` shards on ranges of `roomId` then
//! `n`; `#[document(shard_key(hashed(id)))]` on the hash of `_id` (one
//! field). The derive checks the rules MongoDB would otherwise enforce only
//! at `shardCollection` time or, worse, never:
//!
//! - every unique index starts with the shard key's fields (the server
//!   enforces uniqueness across shards only on such an index; the `_id`
//!   index is unique on each shard only, unless `_id` is the shard key);
//! - each shard key field is one value every document holds: not an
//!   `Option`, not an array (`Vec`, `#[embed]`, `#[many_to_many]`), not a
//!   free-form `Bson`, not left out by serde (`default`,
//!   `skip_serializing_if`), also behind a type alias;
//! - a hashed shard key is one field.
//!
//! Setup ([`Schema::plan`](crate::Schema::plan), `sync`) creates the index
//! the shard key needs (unless a declared index already starts with its
//! fields, or it is `_id` alone), then, on a mongos, shards the collection
//! (`shardCollection`, after `enableSharding` on a server before 6.0). A
//! collection sharded on another key is drift
//! ([`Step::ShardKeyDiffers`](crate::Step::ShardKeyDiffers)) with the
//! command that would change it, never run unasked. On a server that is not
//! a mongos (a replica set, a standalone), the plan lists the collection in
//! [`Plan::unsharded`](crate::Plan::unsharded) and setup creates the
//! supporting index only, so the same models run on both.
//!
//! ```
//! use schema_core::prelude::*;
//! use schema_core::ShardKey;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Document, Serialize, Deserialize)]
//! #[document(collection = "messages", shard_key(room_id, n))]
//! struct Message {
//!     #[serde(rename = "_id")]
//!     id: String,
//!     #[serde(rename = "roomId")]
//!     room_id: String,
//!     n: i64,
//!     text: String,
//! }
//!
//! let key = Message::SHARD_KEY.unwrap();
//! assert_eq!(key, ShardKey::ranged(&["roomId", "n"]));
//! assert_eq!(key.key_document(), schema_core::bson::doc! { "roomId": 1, "n": 1 });
//! // The index it needs, created by setup.
//! assert_eq!(Message::indexes()[0].name, "roomId_1_n_1");
//! ```

use std::fmt;

use bson::{Bson, Document};

use crate::model::index::{IndexKind, IndexOrigin, IndexSpec, HASHED};

/// A model's shard key, by stored field names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardKey {
    /// Its stored fields, in order.
    pub fields: &'static [&'static str],
    /// Hashed (one field) rather than ranged.
    pub hashed: bool,
}

impl ShardKey {
    /// A ranged shard key on `fields`, in order (`{a: 1, b: 1}`).
    pub const fn ranged(fields: &'static [&'static str]) -> Self {
        ShardKey {
            fields,
            hashed: false,
        }
    }

    /// A hashed shard key on one field (`{a: "hashed"}`).
    pub const fn hashed(field: &'static [&'static str; 1]) -> Self {
        ShardKey {
            fields: field,
            hashed: true,
        }
    }

    /// The key document `shardCollection` takes: `{roomId: 1, n: 1}` or
    /// `{_id: "hashed"}`.
    pub fn key_document(&self) -> Document {
        self.fields
            .iter()
            .map(|f| {
                let value = if self.hashed {
                    Bson::String(HASHED.to_owned())
                } else {
                    Bson::Int32(1)
                };
                ((*f).to_owned(), value)
            })
            .collect()
    }

    /// Whether `index` can support this shard key: it starts with the
    /// key's fields (hashed for a hashed key), and is neither sparse,
    /// partial, hidden nor collated (the server refuses such an index for a
    /// shard key).
    pub(crate) fn supported_by(&self, index: &IndexSpec) -> bool {
        let kind_fits = if self.hashed {
            index.kind == IndexKind::Hashed
        } else {
            index.kind == IndexKind::Ordered
        };
        kind_fits
            && !index.sparse
            && !index.hidden
            && index.partial_filter.is_none()
            && index.collation.is_none()
            && index.keys.len() >= self.fields.len()
            && index.keys.iter().zip(self.fields).all(|((k, _), f)| k == f)
    }

    /// The index setup creates for it, unless one of `declared` supports it
    /// already (or the server's own `_id` index does).
    pub(crate) fn supporting_index(&self, declared: &[IndexSpec]) -> Option<IndexSpec> {
        if !self.hashed && self.fields == ["_id"] {
            return None;
        }
        if declared.iter().any(|index| self.supported_by(index)) {
            return None;
        }
        Some(if self.hashed {
            IndexSpec::hashed(self.fields[0], IndexOrigin::ShardKey)
        } else {
            let keys = self
                .fields
                .iter()
                .map(|f| ((*f).to_owned(), crate::Direction::Asc))
                .collect();
            IndexSpec::new(keys, IndexOrigin::ShardKey)
        })
    }

    /// The first of the key's fields an update document (`{$set: {..}}`,
    /// `{$inc: {..}}`...) writes: the field itself, a path inside it, or a
    /// sub-document that holds it.
    pub(crate) fn written_by(&self, update: &Document) -> Option<&'static str> {
        let writes = |path: &str, field: &str| {
            path == field
                || path.strip_prefix(field).is_some_and(|r| r.starts_with('.'))
                || field.strip_prefix(path).is_some_and(|r| r.starts_with('.'))
        };
        // Every path an operator writes; `$rename` writes its values too.
        let mut paths: Vec<&str> = Vec::new();
        for (op, fields) in update {
            let Some(fields) = fields.as_document() else {
                continue;
            };
            for (path, value) in fields {
                paths.push(path);
                if let (true, Some(to)) = (op == "$rename", value.as_str()) {
                    paths.push(to);
                }
            }
        }
        self.fields
            .iter()
            .copied()
            .find(|field| paths.iter().any(|path| writes(path, field)))
    }
}

impl fmt::Display for ShardKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.key_document())
    }
}

/// With the `tracing` feature, the `WARN` event of a query of
/// `collection` that goes to every shard of a cluster (see
/// [`query::targeting`](crate::query::targeting)); nothing otherwise.
pub(crate) fn warn_broadcast(collection: &'static str, operation: &'static str, key: &ShardKey) {
    #[cfg(feature = "tracing")]
    tracing::warn!(
        target: "schema_core",
        collection,
        operation,
        shard_key = %key,
        "on a sharded cluster this query goes to every shard: its filter does not hold the shard key's first field by equality",
    );
    #[cfg(not(feature = "tracing"))]
    let _ = (collection, operation, key);
}

/// `declared` with the index `key` needs added last, when none of them
/// supports it: what [`Document::indexes`](crate::Document::indexes) returns
/// for a model with a shard key.
pub(crate) fn with_supporting_index(
    mut declared: Vec<IndexSpec>,
    key: Option<ShardKey>,
) -> Vec<IndexSpec> {
    if let Some(index) = key.and_then(|k| k.supporting_index(&declared)) {
        declared.push(index);
    }
    declared
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn an_update_writes_a_key_field_by_its_path_a_parent_a_child_or_a_rename() {
        let key = ShardKey::ranged(&["roomId", "at.day"]);
        let written = |update: Document| key.written_by(&update);
        assert_eq!(written(doc! { "$set": { "roomId": "b" } }), Some("roomId"));
        assert_eq!(written(doc! { "$inc": { "at.day": 1 } }), Some("at.day"));
        assert_eq!(
            written(doc! { "$set": { "at": { "day": 2 } } }),
            Some("at.day")
        );
        assert_eq!(
            written(doc! { "$unset": { "at.day.x": "" } }),
            Some("at.day")
        );
        assert_eq!(
            written(doc! { "$rename": { "old": "roomId" } }),
            Some("roomId")
        );
        assert_eq!(written(doc! { "$set": { "roomIdx": 1, "atx": 1 } }), None);
        assert_eq!(
            written(doc! { "$set": { "text": "hi" }, "$inc": { "n": 1 } }),
            None
        );
    }
}
