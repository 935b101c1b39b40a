//! Whether a query on a sharded model goes to one shard or to all of them:
//! a mongos routes a query to the shards that may hold its documents, which
//! it can tell when each branch of the filter holds by equality (`$in`
//! included: the shards of those values) the shard key's first field, or a
//! longer prefix of a ranged key (the chunks of that range, most often on
//! one shard), or the one field of a hashed key. Any other query is a
//! broadcast: correct, but every shard runs it.
//!
//! With the `tracing` feature, every guarded query of a sharded model that
//! is a broadcast, and every `get` and `delete` by `_id` of a model sharded
//! on another key, is a `WARN` event of target `schema_core` in the
//! helper's span, naming the collection and the shard key (never a value).

use bson::Document as BsonDocument;

use super::branch::branches;
use crate::model::Document;

/// Where a mongos sends a query of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Targeting {
    /// The model declares no shard key.
    Unsharded,
    /// Every branch of the filter holds the shard key's first field by
    /// equality (or `$in`): the shards that hold those values.
    Targeted,
    /// Every shard.
    Broadcast,
}

/// Where a mongos sends a query of `M` with `filter` (by the filter alone:
/// the index guard's branches, each holding the shard key's first field by
/// equality or not). Sends nothing.
///
/// ```
/// use schema_core::prelude::*;
/// use schema_core::{targeting, Targeting};
/// use schema_core::bson::doc;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Document, Serialize, Deserialize)]
/// #[document(collection = "messages", shard_key(room_id, n))]
/// struct Message {
///     #[serde(rename = "_id")]
///     id: String,
///     #[serde(rename = "roomId")]
///     room_id: String,
///     n: i64,
/// }
///
/// let room = doc! { "roomId": "lobby", "n": { "$gt": 1 } };
/// assert_eq!(targeting::<Message>(&room), Targeting::Targeted);
/// let rooms = doc! { "$or": [{ "roomId": "a" }, { "roomId": { "$in": ["b", "c"] } }] };
/// assert_eq!(targeting::<Message>(&rooms), Targeting::Targeted);
/// assert_eq!(targeting::<Message>(&doc! { "_id": "m1" }), Targeting::Broadcast);
/// assert_eq!(targeting::<Message>(&doc! { "n": 1 }), Targeting::Broadcast);
/// let some = doc! { "$or": [{ "roomId": "a" }, { "n": 2 }] };
/// assert_eq!(targeting::<Message>(&some), Targeting::Broadcast);
/// ```
pub fn targeting<M: Document>(filter: &BsonDocument) -> Targeting {
    let Some(key) = M::SHARD_KEY else {
        return Targeting::Unsharded;
    };
    let Some(first) = key.fields.first() else {
        return Targeting::Broadcast;
    };
    let targeted = branches(filter, false).iter().all(|branch| {
        branch.blockers.is_empty() && branch.kind(first).is_some_and(|kind| kind.is_eq(false))
    });
    if targeted {
        Targeting::Targeted
    } else {
        Targeting::Broadcast
    }
}

/// With the `tracing` feature, a `WARN` event when a query of `M` with
/// `filter` is a broadcast on a cluster; nothing otherwise (and nothing at
/// all for a model without a shard key: a constant).
pub(crate) fn note<M: Document>(filter: &BsonDocument, operation: &'static str) {
    if let Some(key) = M::SHARD_KEY {
        if targeting::<M>(filter) == Targeting::Broadcast {
            crate::model::shard::warn_broadcast(M::COLLECTION, operation, &key);
        }
    }
}
