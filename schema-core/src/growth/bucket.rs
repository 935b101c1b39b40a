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
//! # use schema_core::growth::Buckets;
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

/// Where a page of items ended: the bucket's `seq` and the item's place in
/// it (0 for its oldest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BucketCursor {
    /// The bucket of the page's last item.
    pub seq: i64,
    /// The item's place in that bucket's array.
    pub index: u32,
}

/// One page of items, and where the next one starts (`None` when this one
/// was not full).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ItemPage<T> {
    /// The items, in the page's order.
    pub items: Vec<T>,
    /// Where the next page starts.
    pub next: Option<BucketCursor>,
}

/// The bucket pattern's helpers for model `M` (see the [module docs](self)).
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

    /// Appends `item` to `parent`'s newest bucket, or to a new one when that
    /// one is full: usually one `update`. Returns the `seq` of the bucket
    /// that took it.
    pub fn push<'a>(&'a self, parent: &'a M::Parent, item: &'a M::Item) -> Action<'a, i64> {
        Action::new(M::COLLECTION, "bucket_push", (), move |s, ()| {
            self.push_opt(s, parent, item)
        })
    }

    /// The newest `k` items of `parent`, newest first: one `find` of
    /// `ceil(k / max) + 1` buckets on the `(parent, seq)` index.
    pub fn newest<'a>(&'a self, parent: &'a M::Parent, k: u32) -> Action<'a, Vec<M::Item>> {
        Action::new(
            M::COLLECTION,
            "bucket_newest",
            (),
            move |s, ()| async move {
                let page = self.items(parent).page_opt(s, k).await?;
                Ok(page.items)
            },
        )
    }

    /// The items of `parent`, paged (newest first unless told
    /// [`oldest_first`](BucketItems::oldest_first)).
    pub fn items<'a>(&'a self, parent: &'a M::Parent) -> BucketItems<'a, M> {
        BucketItems {
            buckets: self,
            parent,
            order: Order::NewestFirst,
            after: None,
        }
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

    /// Keeps `parent`'s newest `keep` items and removes the older ones, the
    /// counts kept exact: whole older buckets are deleted, and the bucket at
    /// the boundary keeps its newest items (`$push` of nothing with
    /// `$slice`, its count set to match, guarded on the count it was read
    /// with). Returns how many items were removed. The boundary is written
    /// before the older buckets are deleted, so an interrupted trim leaves
    /// more items than asked, never fewer.
    pub fn trim<'a>(&'a self, parent: &'a M::Parent, keep: u64) -> Action<'a, u64> {
        Action::new(M::COLLECTION, "bucket_trim", (), move |s, ()| {
            self.trim_opt(s, parent, keep)
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
            crate::query::served::listed_indexes(self.repo.database(), M::COLLECTION).await?;
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

    fn remembered(&self, key: &str) -> Option<Known> {
        self.newest.lock().ok()?.get(key).cloned()
    }

    fn remember(&self, key: String, bucket: Known) {
        if let Ok(mut newest) = self.newest.lock() {
            if newest.len() >= REMEMBERED && !newest.contains_key(&key) {
                newest.clear();
            }
            newest.insert(key, bucket);
        }
    }

    /// `parent`'s newest bucket and its count, `None` when it has none: one
    /// read on the `(parent, seq)` index.
    async fn newest_bucket(
        &self,
        session: Option<&mut ClientSession>,
        parent: &Bson,
    ) -> Result<Option<(Known, u64)>> {
        let spec = M::BUCKET;
        let coll = self.repo.raw();
        let find = coll
            .find_one(doc! { spec.parent: parent.clone() })
            .sort(doc! { spec.seq: -1 })
            .projection(doc! { "_id": 1, spec.seq: 1, spec.count: 1 });
        let found = with_session!(find, session).map_err(|e| self.repo.err(e, "find in"))?;
        Ok(found.and_then(|d| {
            let id = d.get("_id")?.clone();
            let known = Known {
                id,
                seq: seq_of(&d, spec.seq),
            };
            Some((known, count_of(&d, spec.count)))
        }))
    }

    /// The filter of a push into `bucket`: that document at that `seq`, with
    /// room (by count, and by the bounded-push guard).
    fn room(parent: &Bson, bucket: &Known) -> BsonDocument {
        let spec = M::BUCKET;
        let mut filter = doc! {
            "_id": bucket.id.clone(),
            spec.parent: parent.clone(),
            spec.seq: spec.seq_value(bucket.seq),
            spec.count: { "$lt": i64::from(spec.max) },
        };
        filter.insert(
            format!("{}.{}", spec.items, spec.max.saturating_sub(1)),
            doc! { "$exists": false },
        );
        filter
    }

    async fn push_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        parent: &M::Parent,
        item: &M::Item,
    ) -> Result<i64> {
        let spec = M::BUCKET;
        let parent = self.parent_bson(parent)?;
        let item = value_to_bson(item, M::NAME, spec.items)?;
        // The bucket this item would open, checked against 16 MiB before
        // anything is sent: an item that fits in no bucket is refused here.
        let mut fresh = doc! {
            "_id": ObjectId::new(),
            spec.parent: parent.clone(),
            spec.seq: spec.seq_value(0),
            spec.count: spec.count_value(1),
            spec.items: [item.clone()],
        };
        for field in spec.extras {
            fresh.insert(*field, Bson::Null);
        }
        let raw = bson::RawDocumentBuf::try_from(&fresh).map_err(|e| Error::Serialize {
            model: M::NAME,
            field: Some(spec.items.to_owned()),
            source: Box::new(e),
        })?;
        crate::model::codec::check_size(M::COLLECTION, &raw, || {
            fresh.get("_id").cloned().unwrap_or(Bson::Null)
        })?;
        drop(raw);
        self.require_index().await?;
        let key = crate::model::codec::value_key(&parent);
        let coll = self.repo.raw();
        let push =
            doc! { "$push": { spec.items: item }, "$inc": { spec.count: spec.count_value(1) } };
        let mut remembered = self.remembered(&key);
        // The bucket the server refused the item in by size (10334).
        let mut refused: Option<Bson> = None;
        for _ in 0..TRIES {
            // The remembered bucket, else the newest (and whether it is full).
            let (bucket, full) = match remembered.take() {
                Some(known) => (Some(known), false),
                None => match self.newest_bucket(session.as_deref_mut(), &parent).await? {
                    Some((known, count)) => (Some(known), count >= u64::from(spec.max)),
                    None => (None, true),
                },
            };
            let too_small = bucket
                .as_ref()
                .is_some_and(|b| refused.as_ref() == Some(&b.id));
            if let (Some(bucket), false, false) = (&bucket, full, too_small) {
                let update = coll.update_one(Self::room(&parent, bucket), push.clone());
                match with_session!(update, session.as_deref_mut()) {
                    Ok(done) if done.matched_count == 1 => {
                        self.remember(key, bucket.clone());
                        return Ok(bucket.seq);
                    }
                    // Full, gone or moved by a trim meanwhile: read the
                    // newest bucket.
                    Ok(_) => {}
                    // The item does not fit in what is left of it: read
                    // the newest bucket, and if this is still it, open the
                    // next.
                    Err(e) if crate::error::DriverErrorExt::code(&e) == Some(OBJECT_TOO_LARGE) => {
                        refused = Some(bucket.id.clone());
                    }
                    Err(e) => return Err(self.repo.err(e, "push into")),
                }
                continue;
            }
            // No bucket yet, or the newest is full: open the one after it.
            // Left by size, the newest still has room by count: the new
            // bucket takes the place after the next, and the newest moves up
            // into the next once it is open.
            let (next, close) = match &bucket {
                None => (0, None),
                Some(b) if too_small => (b.seq + 2, Some(b)),
                Some(b) => (b.seq + 1, None),
            };
            fresh.insert(spec.seq, spec.seq_value(next));
            if let Some(opened) = self
                .open(session.as_deref_mut(), &parent, &fresh, close)
                .await?
            {
                self.remember(key, opened.clone());
                return Ok(opened.seq);
            }
        }
        Err(Error::Model(format!(
            "a push into `{}` found no room after {TRIES} tries: other writers kept filling the newest bucket",
            M::COLLECTION
        )))
    }

    /// Inserts `bucket` (a new bucket of `parent` holding the item, at its
    /// `seq`), then moves `close` (the newest bucket, left by size) one
    /// place up, so that no handle that remembers it pushes into it again.
    /// `None` when another writer opened that bucket first, or when a newer
    /// bucket was found above it after the insert (its number was trimmed
    /// away and taken again after this push read the newest bucket): it is
    /// deleted again, as long as it holds only this item (no handle knows
    /// it), and the push starts over.
    async fn open(
        &self,
        mut session: Option<&mut ClientSession>,
        parent: &Bson,
        bucket: &BsonDocument,
        close: Option<&Known>,
    ) -> Result<Option<Known>> {
        let spec = M::BUCKET;
        let coll = self.repo.raw();
        let opened = Known {
            id: bucket.get("_id").cloned().unwrap_or(Bson::Null),
            seq: seq_of(bucket, spec.seq),
        };
        let insert = coll.insert_one(bucket);
        match with_session!(insert, session.as_deref_mut()) {
            Ok(_) => {}
            Err(e) if crate::error::DriverErrorExt::code(&e) == Some(code::DUPLICATE_KEY) => {
                return Ok(None)
            }
            Err(e) => return Err(self.repo.err(e, "push into")),
        }
        if let Some(closed) = close {
            let filter = doc! {
                "_id": closed.id.clone(),
                spec.parent: parent.clone(),
                spec.seq: spec.seq_value(closed.seq),
            };
            let up = doc! { "$set": { spec.seq: spec.seq_value(closed.seq + 1) } };
            for _ in 0..TRIES {
                let update = coll.update_one(filter.clone(), up.clone());
                match with_session!(update, session.as_deref_mut()) {
                    // Moved, or moved or deleted by another writer.
                    Ok(_) => break,
                    // A bucket opened there by a push that read long ago,
                    // which removes it again (it is below this one): again.
                    Err(e)
                        if crate::error::DriverErrorExt::code(&e) == Some(code::DUPLICATE_KEY) => {}
                    Err(e) => return Err(self.repo.err(e, "push into")),
                }
            }
        }
        let newest = self.newest_bucket(session.as_deref_mut(), parent).await?;
        if spec.max > 1 && newest.is_some_and(|(newest, _)| newest.seq > opened.seq) {
            let delete = coll.delete_one(doc! { "_id": opened.id.clone(), spec.count: 1 });
            let deleted =
                with_session!(delete, session).map_err(|e| self.repo.err(e, "push into"))?;
            if deleted.deleted_count == 1 {
                return Ok(None);
            }
        }
        Ok(Some(opened))
    }

    async fn trim_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        parent: &M::Parent,
        keep: u64,
    ) -> Result<u64> {
        let spec = M::BUCKET;
        let parent = self.parent_bson(parent)?;
        self.require_index().await?;
        let coll = self.repo.raw();
        let older = |below: i64| {
            doc! {
                spec.parent: parent.clone(),
                spec.seq: { "$lt": spec.seq_value(below) },
            }
        };
        for _ in 0..TRIES {
            let find = coll
                .find(doc! { spec.parent: parent.clone() })
                .sort(doc! { spec.seq: -1 })
                .projection(doc! { "_id": 1, spec.seq: 1, spec.count: 1 });
            let buckets = crate::exec::cursor::collect(find, session.as_deref_mut())
                .await
                .map_err(|e| self.repo.err(e, "trim"))?;
            let mut kept = 0u64;
            let mut boundary = None;
            for bucket in &buckets {
                let count = count_of(bucket, spec.count);
                if kept + count >= keep {
                    let id = bucket.get("_id").cloned().unwrap_or(Bson::Null);
                    boundary = Some((id, seq_of(bucket, spec.seq), count, keep - kept));
                    break;
                }
                kept += count;
            }
            let Some((id, seq, count, stays)) = boundary else {
                return Ok(0);
            };
            let total: u64 = buckets.iter().map(|b| count_of(b, spec.count)).sum();
            // The older buckets are those below this one.
            let mut below = seq;
            if stays < count {
                let filter = doc! {
                    "_id": id,
                    spec.parent: parent.clone(),
                    spec.seq: spec.seq_value(seq),
                    spec.count: count as i64,
                };
                let mut slice = doc! {
                    "$push": { spec.items: { "$each": [], "$slice": -(stays as i64) } },
                    "$set": { spec.count: spec.count_value(stays as i64) },
                };
                let result = if stays == 0 {
                    let delete = coll.delete_one(filter);
                    with_session!(delete, session.as_deref_mut()).map(|d| d.deleted_count)
                } else if count < u64::from(spec.max) {
                    let update = coll.update_one(filter, slice);
                    with_session!(update, session.as_deref_mut()).map(|u| u.matched_count)
                } else {
                    // A full bucket given room would take the push of a
                    // handle that remembers it, below the newer buckets: it
                    // moves one place down, where no handle knows it, once
                    // the older buckets are gone.
                    let delete = coll.delete_many(older(seq));
                    with_session!(delete, session.as_deref_mut())
                        .map_err(|e| self.repo.err(e, "trim"))?;
                    below = seq - 1;
                    if let Ok(set) = slice.get_document_mut("$set") {
                        set.insert(spec.seq, spec.seq_value(below));
                    }
                    let update = coll.update_one(filter, slice);
                    match with_session!(update, session.as_deref_mut()) {
                        Ok(u) => Ok(u.matched_count),
                        // An opener that read long ago took that place.
                        Err(e)
                            if crate::error::DriverErrorExt::code(&e)
                                == Some(code::DUPLICATE_KEY) =>
                        {
                            Ok(0)
                        }
                        Err(e) => Err(e),
                    }
                };
                // A push or another trim changed the boundary bucket
                // meanwhile: again.
                if result.map_err(|e| self.repo.err(e, "trim"))? == 0 {
                    continue;
                }
            }
            let delete = coll.delete_many(older(below));
            with_session!(delete, session.as_deref_mut()).map_err(|e| self.repo.err(e, "trim"))?;
            return Ok(total - keep.min(total));
        }
        Err(Error::Model(format!(
            "a trim of `{}` kept meeting concurrent pushes at its boundary",
            M::COLLECTION
        )))
    }
}

/// A page of a parent's items (see [`Buckets::items`]).
#[must_use = "a query does nothing until it is awaited"]
pub struct BucketItems<'a, M: Bucket> {
    buckets: &'a Buckets<M>,
    parent: &'a M::Parent,
    order: Order,
    after: Option<BucketCursor>,
}

impl<'a, M: Bucket> BucketItems<'a, M> {
    /// Oldest items first (the default is newest first).
    pub fn oldest_first(mut self) -> Self {
        self.order = Order::OldestFirst;
        self
    }

    /// The items after `cursor` (the `next` of the page before, in the same
    /// order).
    pub fn after(mut self, cursor: BucketCursor) -> Self {
        self.after = Some(cursor);
        self
    }

    /// One page of at most `size` items: one `find` of `ceil(size / max) + 1`
    /// buckets on the `(parent, seq)` index (more only when buckets hold
    /// fewer items than `max`, after a trim).
    pub fn page(self, size: u32) -> Action<'a, ItemPage<M::Item>> {
        Action::new(M::COLLECTION, "bucket_page", (), move |s, ()| {
            self.page_opt(s, size)
        })
    }

    /// What the server does for the page's first `find` (`explain` with
    /// `executionStats`): the buckets it reads, on the `(parent, seq)` index.
    pub async fn explain(self, size: u32) -> Result<PlanSummary> {
        let spec = M::BUCKET;
        let parent = self.buckets.parent_bson(self.parent)?;
        let (dir, from) = match self.order {
            Order::NewestFirst => (-1, "$lte"),
            Order::OldestFirst => (1, "$gte"),
        };
        let mut filter = doc! { spec.parent: parent };
        if let Some(at) = self.after {
            filter.insert(spec.seq, doc! { from: spec.seq_value(at.seq) });
        }
        let shape = FindShape {
            filter,
            sort: Some(doc! { spec.seq: dir }),
            limit: Some(i64::from(size.div_ceil(spec.max.max(1)).saturating_add(1))),
            projection: Some(doc! { spec.seq: 1, spec.items: 1, "_id": 0 }),
            hint: None,
            collation: None,
        };
        explain_find(self.buckets.repo.database(), M::COLLECTION, &shape).await
    }

    async fn page_opt(
        self,
        mut session: Option<&mut ClientSession>,
        size: u32,
    ) -> Result<ItemPage<M::Item>> {
        let spec = M::BUCKET;
        let parent = self.buckets.parent_bson(self.parent)?;
        self.buckets.require_index().await?;
        let coll = self.buckets.repo.raw();
        let newest_first = self.order == Order::NewestFirst;
        let (dir, from, past) = if newest_first {
            (-1, "$lte", "$lt")
        } else {
            (1, "$gte", "$gt")
        };
        let per_find = i64::from(size.div_ceil(spec.max.max(1)).saturating_add(1));
        let wanted = size as usize;
        let mut items: Vec<(i64, u32, Bson)> = Vec::new();
        // Strictly past this bucket, once a find ran out before the page
        // was full; else from the cursor's bucket (its items past the
        // cursor's place).
        let mut beyond: Option<i64> = None;
        while items.len() < wanted {
            let mut filter = doc! { spec.parent: parent.clone() };
            match (beyond, self.after) {
                (Some(seq), _) => {
                    filter.insert(spec.seq, doc! { past: spec.seq_value(seq) });
                }
                (None, Some(at)) => {
                    filter.insert(spec.seq, doc! { from: spec.seq_value(at.seq) });
                }
                (None, None) => {}
            }
            let find = coll
                .find(filter)
                .sort(doc! { spec.seq: dir })
                .limit(per_find)
                .projection(doc! { spec.seq: 1, spec.items: 1, "_id": 0 });
            let buckets = crate::exec::cursor::collect(find, session.as_deref_mut())
                .await
                .map_err(|e| self.buckets.repo.err(e, "page through"))?;
            let fetched = buckets.len() as i64;
            for bucket in buckets {
                let seq = seq_of(&bucket, spec.seq);
                beyond = Some(seq);
                let Some(Bson::Array(list)) = bucket.get(spec.items) else {
                    continue;
                };
                let places = (0..list.len() as u32).zip(list.iter());
                let places: Vec<(u32, &Bson)> = if newest_first {
                    places.rev().collect()
                } else {
                    places.collect()
                };
                for (index, item) in places {
                    let after_cursor = match self.after {
                        Some(at) if at.seq == seq && newest_first => index < at.index,
                        Some(at) if at.seq == seq => index > at.index,
                        _ => true,
                    };
                    if after_cursor && items.len() < wanted {
                        items.push((seq, index, item.clone()));
                    }
                }
            }
            if fetched < per_find {
                break;
            }
        }
        let next = (wanted > 0 && items.len() >= wanted).then(|| {
            let (seq, index, _) = items[items.len() - 1];
            BucketCursor { seq, index }
        });
        let items = items
            .into_iter()
            .map(|(_, _, item)| {
                bson::deserialize_from_bson::<M::Item>(item).map_err(|source| Error::Decode {
                    model: M::NAME,
                    collection: M::COLLECTION,
                    id: "(a bucket item)".to_owned(),
                    field: Some(spec.items.to_owned()),
                    source: Box::new(source),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ItemPage { items, next })
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
