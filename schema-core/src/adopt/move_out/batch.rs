//! [`MoveOut::run`]: the parents that still hold the array, one after the
//! other by `_id`, each emptied in batches of one transaction each.
//!
//! A batch reads the first items of the array and its length (one
//! `aggregate` with `$slice` and `$size`), makes and checks the children
//! of the items it takes (no I/O: an item that does not make a child stops
//! the run before anything of its batch is written), inserts the children,
//! then removes exactly those items from the front of the array (`$push`
//! of nothing with `$slice: -(length - taken)`, or `$unset` of the array
//! when it takes the rest), guarded by the length it read (when the guard
//! matches nothing, the transaction is aborted and the batch read again),
//! all in one transaction. The parent only shrinks, so each write of it fits
//! however close to 16 MiB it was. Killed at any point, each item is in
//! the parent or in the children, never in both and never in neither;
//! running again resumes with the items left.

use std::time::Duration;

use bson::{doc, Bson, Document as BsonDocument, RawDocumentBuf};
use mongodb::{ClientSession, Database};

use super::array::{self, Found};
use super::item::{takes_object_ids, Maker};
use super::order::compare;
use super::{MoveOptions, MoveOut, MoveProgress};
use crate::error::{id_text, Error, Result};
use crate::model::Document;
use crate::repo::Repo;

/// How many times in a row a batch may find its parent's array changed
/// since it read it (a writer still pushing to the old array) before the
/// run gives up.
const MAX_CHANGED: u32 = 100;

/// The server's code for a transaction whose writes do not fit in the
/// storage engine's cache (`TransactionTooLargeForCache`): a stuck parent
/// rewritten beside other large writes can meet it.
const TOO_LARGE_FOR_CACHE: i32 = 388;

/// How many times in a row a batch the server failed is tried again, each
/// time after a longer pause (and with half the items when it was too
/// large for the cache).
const MAX_TRIES: u32 = 8;

/// What one batch did.
enum Batch {
    /// `items` moved; the array gone when `emptied`; `last` the order
    /// value of the last item moved.
    Moved {
        items: u64,
        emptied: bool,
        last: Option<Bson>,
    },
    /// The array changed between the read and the write: nothing written.
    Changed,
    /// The parent, or its array, is gone: nothing to move.
    Gone,
}

impl<P: Document, C: Document> MoveOut<P, C> {
    /// Moves every item of the array of every parent that still holds it
    /// into a child of its own, in batches ([`MoveOptions`]: at most
    /// `batch_size` items and `batch_bytes` bytes of children each), one
    /// transaction per batch, calling `progress` after each. Stops at the
    /// first item that does not make a `C` (it does not decode as `C`, or
    /// breaks one of its bounds): [`Error::Decode`] naming the parent's
    /// `_id` and the item's position in the array as stored then (its
    /// batch is not written, the batches before are); at an item whose
    /// order value is below the one before it (readers take the array in
    /// order); and at a parent whose path holds something else than an
    /// array. Run again to resume: it moves what is left.
    ///
    /// A batch the server fails is tried again after a pause, up to 8
    /// times in a row: it reads what is left in its own transaction, so
    /// each item still moves once whether the failed attempt committed or
    /// not (one whose commit's outcome was unknown is then not counted in
    /// [`MoveProgress::moved`]). One refused as too large for the storage
    /// engine's cache (code 388, `TransactionTooLargeForCache`: a parent
    /// near 16 MiB is rewritten in it) is tried with half the items, and
    /// the parent's next batches keep the smaller size.
    ///
    /// Per batch: one `aggregate` reading the parent's first items and the
    /// array's length, one `insert` of the children, one `update` of the
    /// parent, one `commitTransaction`; per parent one `find` (on `_id`)
    /// for the next one. The parents' other writes must be updates, not
    /// whole replaces: a replace by `P`, which no longer declares the
    /// array, drops the items still in it.
    pub async fn run(
        &self,
        db: &Database,
        options: MoveOptions,
        mut progress: impl FnMut(&MoveProgress) + Send,
    ) -> Result<MoveProgress> {
        self.check()?;
        let order = self.order_key()?;
        let fresh_ids = takes_object_ids::<C>();
        let repo = Repo::<C>::new(db);
        let parents = db.collection::<RawDocumentBuf>(P::COLLECTION);
        let mut state = MoveProgress::default();
        let mut after: Option<Bson> = None;
        loop {
            let path = self.path;
            let mut filter = doc! { path: { "$exists": true } };
            if let Some(last) = &after {
                filter.insert("_id", doc! { "$gt": last.clone() });
            }
            let next = parents
                .find_one(filter)
                .sort(doc! { "_id": 1 })
                .projection(doc! { "_id": 1 })
                .await
                .map_err(|e| Error::from_server(e, "find in", P::COLLECTION))?;
            let Some(parent) = next else {
                state.finished = true;
                progress(&state);
                return Ok(state);
            };
            let id = parent
                .get("_id")
                .ok()
                .flatten()
                .and_then(|id| Bson::try_from(id).ok())
                .unwrap_or(Bson::Null);
            after = Some(id.clone());
            let maker = Maker {
                path: self.path,
                reference: self.reference.name(),
                parent: id,
                collection: P::COLLECTION,
                fresh_ids,
            };
            let (mut last, mut changed) = (None, 0);
            let (mut size, mut tries) = (options.batch_size.max(1), 0);
            loop {
                if options.max_batches.is_some_and(|max| state.batches >= max) {
                    return Ok(state);
                }
                let batch = match self
                    .one_batch(&repo, db, &maker, options, size, order, &last)
                    .await
                {
                    // A batch reads what is left in its own transaction,
                    // so trying it again after any server error moves each
                    // item once, whether the failed one committed or not.
                    Err(e @ Error::Driver(_)) if tries < MAX_TRIES => {
                        if e.code() == Some(TOO_LARGE_FOR_CACHE) {
                            // The cache's share of a transaction is what
                            // other writes leave of it: smaller, and later.
                            size = (size / 2).max(1);
                        }
                        tries += 1;
                        tokio::time::sleep(Duration::from_millis(100) * tries).await;
                        continue;
                    }
                    batch => batch?,
                };
                tries = 0;
                match batch {
                    Batch::Moved {
                        items,
                        emptied,
                        last: moved,
                    } => {
                        (state.moved, state.batches) = (state.moved + items, state.batches + 1);
                        state.emptied += u64::from(emptied);
                        (last, changed) = (moved, 0);
                        progress(&state);
                        if let Some(pause) = options.pause {
                            tokio::time::sleep(pause).await;
                        }
                        if emptied {
                            break;
                        }
                    }
                    Batch::Gone => break,
                    Batch::Changed if changed < MAX_CHANGED => changed += 1,
                    Batch::Changed => {
                        return Err(Error::Model(format!(
                            "the `{}` document with _id `{}` had its `{}` changed {MAX_CHANGED} times between a batch's read and its write: stop the writers that still push to it, then run the move again",
                            P::COLLECTION,
                            id_text(&maker.parent),
                            self.path
                        )))
                    }
                }
            }
        }
    }

    /// One batch of `size` items at most, in a transaction of its own.
    #[allow(clippy::too_many_arguments)]
    async fn one_batch(
        &self,
        repo: &Repo<C>,
        db: &Database,
        maker: &Maker,
        options: MoveOptions,
        size: u32,
        order: &str,
        last: &Option<Bson>,
    ) -> Result<Batch> {
        let options = MoveOptions {
            batch_size: size,
            ..options
        };
        let models = [P::NAME, C::NAME];
        crate::txn::transact(
            repo.support(),
            &models,
            db.client(),
            None,
            repo.txn_config(),
            (self, db, maker, options, order, last),
            |s, (this, db, maker, options, order, last)| {
                Box::pin(async move {
                    this.batch(s, db, maker, *options, order, last.as_ref())
                        .await
                })
            },
        )
        .await
    }

    /// One batch of one parent, in the transaction of `session` (see the
    /// module docs); `last` is the order value of the item the previous
    /// batch of this run moved last.
    async fn batch(
        &self,
        session: &mut ClientSession,
        db: &Database,
        maker: &Maker,
        options: MoveOptions,
        order: &str,
        last: Option<&Bson>,
    ) -> Result<Batch> {
        let path = self.path;
        let take = i32::try_from(options.batch_size.max(1)).unwrap_or(i32::MAX);
        let read = array::read(db, session, P::COLLECTION, path, &maker.parent, Some(take));
        let (len, items) = match read.await? {
            Found::NoParent => return Ok(Batch::Gone),
            Found::NotAnArray(kind) => return self.not_an_array(session, db, maker, &kind).await,
            Found::Items { len, items } => (len, items),
        };
        let malformed = |_| {
            Error::Model(format!(
                "the server's reply to the read of `{}.{path}` was malformed",
                P::COLLECTION
            ))
        };
        let parent_filter = doc! { "_id": maker.parent.clone(), path: { "$size": len as i64 } };
        let (mut children, mut bytes, mut previous) = (Vec::new(), 0usize, last.cloned());
        for (position, item) in items.into_iter().enumerate() {
            let (child, _) = maker.child::<C>(item.map_err(malformed)?, position)?;
            let size = child.as_bytes().len();
            if !children.is_empty() && bytes + size > options.batch_bytes {
                break;
            }
            let value = match child.get(order) {
                Ok(Some(value)) => Bson::try_from(value).unwrap_or(Bson::Null),
                _ => Bson::Null,
            };
            if previous
                .as_ref()
                .is_some_and(|p| compare(p, &value).is_gt())
            {
                return Err(Error::Model(format!(
                    "the item at `{path}.{position}` of the `{}` document with _id `{}` comes after an item of a larger `{order}`: readers take the array in `{order}` order, so the move keeps it; sort the array first; nothing of this batch was written",
                    P::COLLECTION,
                    id_text(&maker.parent)
                )));
            }
            previous = Some(value);
            bytes += size;
            children.push(child);
        }
        let taken = children.len();
        let update = if taken >= len {
            doc! { "$unset": { path: "" } }
        } else {
            let keep = i64::try_from(len - taken).unwrap_or(i64::MAX);
            doc! { "$push": { path: { "$each": [], "$slice": -keep } } }
        };
        // The children first: on the test server an insert that follows
        // an update of a large document in the same transaction waits for
        // the transaction's lifetime (60 s) and is aborted.
        if !children.is_empty() {
            db.collection::<RawDocumentBuf>(C::COLLECTION)
                .insert_many(children)
                .session(&mut *session)
                .await
                .map_err(|e| Error::from_server(e, "insert into", C::COLLECTION))?;
        }
        let parents = db.collection::<BsonDocument>(P::COLLECTION);
        let r = parents
            .update_one(parent_filter, update)
            .session(&mut *session)
            .await
            .map_err(|e| Error::from_server(e, "remove moved items from", P::COLLECTION))?;
        if r.matched_count == 0 {
            // Changed since the read: the children go with the abort.
            session
                .abort_transaction()
                .await
                .map_err(|e| Error::from_server(e, "abort a batch of", P::COLLECTION))?;
            return Ok(Batch::Changed);
        }
        Ok(Batch::Moved {
            items: taken as u64,
            emptied: taken >= len,
            last: previous,
        })
    }

    /// The parent holds something else than an array at the path: `null`
    /// is unset (nothing to move), anything else stops the run.
    async fn not_an_array(
        &self,
        session: &mut ClientSession,
        db: &Database,
        maker: &Maker,
        kind: &str,
    ) -> Result<Batch> {
        let path = self.path;
        match kind {
            "missing" => Ok(Batch::Gone),
            "null" => {
                db.collection::<BsonDocument>(P::COLLECTION)
                    .update_one(
                        doc! { "_id": maker.parent.clone(), path: Bson::Null },
                        doc! { "$unset": { path: "" } },
                    )
                    .session(session)
                    .await
                    .map_err(|e| Error::from_server(e, "unset the array of", P::COLLECTION))?;
                Ok(Batch::Moved {
                    items: 0,
                    emptied: true,
                    last: None,
                })
            }
            kind => Err(Error::Model(format!(
                "the `{}` document with _id `{}` holds a {kind} at `{}`, not an array of items to move",
                P::COLLECTION,
                id_text(&maker.parent),
                self.path
            ))),
        }
    }
}
