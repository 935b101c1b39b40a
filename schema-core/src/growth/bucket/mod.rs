//! The bucket pattern, declared: a document of `#[document(bucket(...))]`
//! holds up to `max` items of one parent (its `#[embed(max = N)]` array) with
//! their count and its place among the parent's buckets (`seq`, 0 for the
//! first). [`Buckets`] keeps the pattern's promises:
//!
//! - **A push never overfills a bucket and never loses an item.** It goes
//!   into the parent's newest bucket with an update filtered on that
//!   bucket (its `_id` and `seq`) and `count < max` (and the bounded-push
//!   guard `items.<max-1>: {$exists: false}`), which `$push`es the item and
//!   `$inc`s the count in one atomic write.
//! - **Only the newest bucket takes pushes, and a new one opens above every
//!   other.** When the newest bucket is full, or the item does not fit in
//!   what is left of it by size (the server refuses a document over
//!   16 MiB, code 10334, and nothing is written), the push reads the
//!   parent's newest bucket (one indexed read) and inserts the next one
//!   with the item: racers that open the same bucket meet on the unique
//!   index on `(parent, seq)`, and the loser pushes again. A bucket left by
//!   size still has room by count: the new bucket takes `seq + 2` and the
//!   one left moves up into `seq + 1`, so that no handle that remembers it
//!   pushes a smaller item into it. After opening, the push reads the
//!   newest bucket once more: a bucket opened below a newer one (its
//!   number trimmed away and taken again meanwhile) is removed and the
//!   push starts over. An item that fits in no bucket (a bucket holding it
//!   alone is over 16 MiB) is [`Error::TooLarge`], before anything is
//!   sent.
//! - **The newest `k` items** are read with one `find` on the `(parent, seq)`
//!   index, newest bucket first, limited to `ceil(k / max) + 1` buckets (the
//!   newest may be partly filled).
//! - **Pages over items** run across buckets in either direction, with a
//!   [`BucketCursor`] (the bucket's `seq` and the item's place in it).
//! - **Trimming** keeps the newest items and the counts exact. A full bucket
//!   that keeps only part of its items moves one place down (`seq - 1`,
//!   once the older buckets are deleted), so that its new room takes no
//!   push from a handle that remembers it: a bucket once full never takes
//!   another item. A trim moves the items a cursor points at: a page after
//!   a trim may skip or repeat items.
//! - **Before setup nothing is written**: every helper refuses with
//!   [`Error::MissingIndex`] until the collection has the unique
//!   `(parent, seq)` index (asked once per `Buckets` and its clones).
//!
//! The newest bucket of each parent pushed to (its `_id` and `seq`) is
//! remembered by the `Buckets` (and its clones), so a push to a known
//! parent is one `update`; the first push to a parent, and a push whose
//! remembered bucket is full, gone or moved, reads the newest bucket first.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use schema_core::Buckets;
//! # use schema_core::bson::{oid::ObjectId, DateTime};
//! # use serde::{Deserialize, Serialize};
//! #[derive(Embedded, Serialize, Deserialize, Clone, Debug)]
//! struct Message {
//!     at: DateTime,
//!     text: String,
//! }
//!
//! #[derive(Document, Serialize, Deserialize, Debug)]
//! #[serde(rename_all = "camelCase")]
//! #[document(
//!     collection = "message_buckets",
//!     bucket(parent = room_id, items = messages, count = count, seq = seq)
//! )]
//! struct MessageBucket {
//!     #[serde(rename = "_id")]
//!     id: ObjectId,
//!     room_id: String,
//!     seq: i64,
//!     count: i32,
//!     #[embed(max = 100)]
//!     messages: Vec<Message>,
//! }
//!
//! # async fn demo(db: schema_core::mongodb::Database) -> schema_core::Result<()> {
//! let rooms = Buckets::<MessageBucket>::new(&db);
//! let hello = Message { at: DateTime::now(), text: "hello".into() };
//! rooms.push(&"general".to_owned(), &hello).await?;
//! let newest: Vec<Message> = rooms.newest(&"general".to_owned(), 50).await?;
//! let page = rooms.items(&"general".to_owned()).page(20).await?;
//! if let Some(next) = page.next {
//!     let older = rooms.items(&"general".to_owned()).after(next).page(20).await?;
//! #   let _ = older;
//! }
//! # let _ = newest;
//! # Ok(())
//! # }
//! ```

mod items;
mod push;
mod trim;

pub use items::{BucketCursor, BucketItems};

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bson::oid::ObjectId;
use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Database};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{code, Error, Result};
use crate::exec::action::Action;
use crate::model::codec::value_to_bson;
use crate::model::index::name_of_key_document;
use crate::model::Document;
use crate::query::explain::{explain_find, FindShape, PlanSummary};
use crate::query::Page;
use crate::repo::Repo;
use crate::txn::with_session;

/// The roles of a bucket model's fields, by stored name, and its bound.
/// Generated by `#[document(bucket(...))]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BucketSpec {
    /// The field that holds the parent's id.
    pub parent: &'static str,
    /// The `#[embed(max = N)]` array of items.
    pub items: &'static str,
    /// The number of items the bucket holds.
    pub count: &'static str,
    /// The bucket's place among its parent's (0, 1, 2, ...).
    pub seq: &'static str,
    /// The most items a bucket holds: the array's `max`.
    pub max: u32,
    /// The count is an `i64` (stored as a BSON long), else an `i32`.
    pub count_long: bool,
    /// The `seq` is an `i64`, else an `i32`.
    pub seq_long: bool,
    /// The model's other fields (`Option`s, its summary), stored as null in
    /// a bucket the framework opens.
    pub extras: &'static [&'static str],
}

/// A model of the bucket pattern: `#[document(bucket(...))]` implements it.
pub trait Bucket: Document {
    /// The parent's id type (the type of the `parent` field).
    type Parent: Serialize + Send + Sync;
    /// One item (the array's item type).
    type Item: Serialize + DeserializeOwned + Send + Sync;
    /// The fields' roles.
    const BUCKET: BucketSpec;
}

/// The bucket pattern's helpers for model `M` (see the module docs).
pub struct Buckets<M: Bucket> {
    repo: Repo<M>,
    /// The newest bucket pushed to of each parent (by the parent's id as
    /// text).
    newest: Arc<Mutex<HashMap<String, Known>>>,
    /// Whether the server was found to have the unique `(parent, seq)`
    /// index.
    indexed: Arc<AtomicBool>,
}

impl<M: Bucket> Clone for Buckets<M> {
    fn clone(&self) -> Self {
        Buckets {
            repo: self.repo.clone(),
            newest: self.newest.clone(),
            indexed: self.indexed.clone(),
        }
    }
}

impl<M: Bucket> std::fmt::Debug for Buckets<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Buckets<{}>", M::NAME)
    }
}

/// The most parents whose newest bucket a [`Buckets`] remembers; past it the
/// memory starts afresh (a push then reads the newest bucket once more).
const REMEMBERED: usize = 10_000;

/// How many times a push tries to find room before it gives up: each try
/// that finds no room is a bucket filled by another writer meanwhile.
const TRIES: usize = 64;

/// A bucket as a push knows it: its `_id` and its `seq`. A push into it is
/// filtered on both, so a bucket a trim moved (or deleted, its number taken
/// again by a new bucket) takes nothing from a handle that remembers it.
#[derive(Debug, Clone)]
struct Known {
    id: Bson,
    seq: i64,
}

/// `BSONObjectTooLarge`: the server refused a write that would take the
/// document past 16 MiB.
const OBJECT_TOO_LARGE: i32 = 10334;

/// The order of a page of items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    NewestFirst,
    OldestFirst,
}

impl<M: Bucket> Buckets<M> {
    /// The helpers for `M`'s buckets in `db`.
    pub fn new(db: &Database) -> Self {
        Buckets {
            repo: Repo::new(db),
            newest: Arc::default(),
            indexed: Arc::default(),
        }
    }

    /// The buckets' repository (for anything these helpers do not cover).
    pub fn repo(&self) -> &Repo<M> {
        &self.repo
    }

    /// How many items `parent` has: the sum of its buckets' counts.
    pub fn count<'a>(&'a self, parent: &'a M::Parent) -> Action<'a, u64> {
        Action::new(M::COLLECTION, "bucket_count", (), move |s, ()| async move {
            self.require_index().await?;
            let spec = M::BUCKET;
            let parent = self.parent_bson(parent)?;
            let coll = self.repo.raw();
            let find = coll
                .find(doc! { spec.parent: parent })
                .projection(doc! { spec.count: 1, "_id": 0 })
                .sort(doc! { spec.seq: -1 });
            let docs = crate::exec::cursor::collect(find, s)
                .await
                .map_err(|e| self.repo.err(e, "count in"))?;
            Ok(docs.iter().map(|d| count_of(d, spec.count)).sum())
        })
    }

    fn parent_bson(&self, parent: &M::Parent) -> Result<Bson> {
        value_to_bson(parent, M::NAME, M::BUCKET.parent)
    }

    /// Fails with [`Error::MissingIndex`] unless the collection has the
    /// unique index on `(parent, seq)` that setup creates: without it, racers
    /// that open the same bucket would each open one. Asks the server
    /// (`listIndexes`, outside any session) once per `Buckets` and its
    /// clones; after that it sends nothing.
    async fn require_index(&self) -> Result<()> {
        if self.indexed.load(Ordering::Acquire) {
            return Ok(());
        }
        let spec = M::BUCKET;
        let keys = doc! { spec.parent: 1, spec.seq: -1 };
        let listed =
            crate::query::server_indexes::listed_indexes(self.repo.database(), M::COLLECTION)
                .await?;
        let unique = listed.iter().any(|index| {
            crate::model::index::server::same_key_order(&index.keys, &keys)
                && index.options.as_ref().and_then(|o| o.unique) == Some(true)
        });
        if !unique {
            return Err(Error::MissingIndex {
                collection: M::COLLECTION,
                index: name_of_key_document(&keys),
            });
        }
        self.indexed.store(true, Ordering::Release);
        Ok(())
    }
}

impl BucketSpec {
    /// A `seq` value as the model stores it.
    fn seq_value(&self, seq: i64) -> Bson {
        int(self.seq_long, seq)
    }

    /// A count value as the model stores it.
    fn count_value(&self, n: i64) -> Bson {
        int(self.count_long, n)
    }
}

/// `n` as a BSON long, or an int (a `seq` or count of an `i32` field stays
/// far below `i32::MAX`: a bucket holds at most `max` items, and a parent
/// would need over 2 billion buckets).
fn int(long: bool, n: i64) -> Bson {
    match (long, i32::try_from(n)) {
        (false, Ok(small)) => Bson::Int32(small),
        _ => Bson::Int64(n),
    }
}

fn seq_of(doc: &BsonDocument, field: &str) -> i64 {
    match doc.get(field) {
        Some(Bson::Int32(n)) => i64::from(*n),
        Some(Bson::Int64(n)) => *n,
        _ => -1,
    }
}

fn count_of(doc: &BsonDocument, field: &str) -> u64 {
    u64::try_from(seq_of(doc, field)).unwrap_or(0)
}
