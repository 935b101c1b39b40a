//! [`MoveReads`]: one parent's items read from wherever they are while
//! the move runs (the children, and what is left of the array), in one
//! snapshot transaction, in the order of the reference's sort key: no item
//! is seen twice or missed while a batch moves, since a batch moves its
//! items in one transaction too.

use std::cmp::Ordering;

use bson::{doc, Bson, RawDocument, RawDocumentBuf};
use mongodb::options::{ReadConcern, TransactionOptions};
use mongodb::{ClientSession, Database};

use super::array::{self, Found};
use super::item::{takes_object_ids, Maker};
use super::order::compare;
use super::MoveOut;
use crate::error::{Error, Result};
use crate::model::codec;
use crate::model::Document;
use crate::query::explain::{explain_find, FindShape, PlanSummary};
use crate::repo::Repo;
use crate::txn::TxnConfig;

/// Reads of the items of one parent during and after a [`MoveOut`], from
/// the children and what is left of the array, in one snapshot
/// transaction, in the order of the reference's sort key; made by
/// [`MoveOut::reads`], kept and reused (it checks the children's index
/// once).
pub struct MoveReads<P: Document, C: Document> {
    moving: MoveOut<P, C>,
    repo: Repo<C>,
    config: TxnConfig,
}

impl<P: Document, C: Document> std::fmt::Debug for MoveReads<P, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MoveReads({:?})", self.moving)
    }
}

impl<P: Document, C: Document> MoveOut<P, C> {
    /// The reads of the items of one parent in `db`, from wherever they
    /// are.
    pub fn reads(&self, db: &Database) -> MoveReads<P, C> {
        let options = TransactionOptions::builder()
            .read_concern(ReadConcern::snapshot())
            .build();
        MoveReads {
            moving: *self,
            repo: Repo::new(db),
            config: TxnConfig {
                options: Some(options),
                ..TxnConfig::default()
            },
        }
    }
}

/// How many times a read the server failed is read again.
const READ_RETRIES: u32 = 3;

/// An item read, with its order value.
struct Read<C> {
    order: Bson,
    item: C,
}

impl<P: Document, C: Document> MoveReads<P, C> {
    /// Every item of `parent`, oldest first (by the reference's sort key,
    /// ascending; ties: the children first), from the children and what is
    /// left of the array, in one snapshot transaction: one `aggregate` of
    /// the parent's array, one `find` of its children (on their reference
    /// index), one `commitTransaction`. An item still in the array reads
    /// with its own `_id`, or, when it has none, with a fresh `ObjectId`
    /// made for this read (its child gets another one). A read the server
    /// fails (its snapshot transaction ended under load) is read again, up
    /// to 3 times: it writes nothing.
    pub async fn items(&self, parent: &P::Id) -> Result<Vec<C>> {
        self.read(parent, None).await
    }

    /// The newest `n` items of `parent`, newest first, read as
    /// [`items`](Self::items) reads them: the last `n` of the array and
    /// the first `n` children of the reference index (`LIMIT > FETCH >
    /// IXSCAN`, `n` keys: see [`explain_newest`](Self::explain_newest)).
    pub async fn newest(&self, parent: &P::Id, n: u32) -> Result<Vec<C>> {
        self.read(parent, Some(n.max(1))).await
    }

    /// What the server does for the children's part of
    /// [`newest`](Self::newest): `explain` with `executionStats` of its
    /// `find`.
    pub async fn explain_newest(&self, parent: &P::Id, n: u32) -> Result<PlanSummary> {
        let parent = codec::id_to_bson::<P>(parent)?;
        let shape = self.children(&parent, Some(n.max(1)))?;
        explain_find(self.repo.database(), C::COLLECTION, &shape).await
    }

    /// The children's `find`: newest first with a limit, else oldest
    /// first, on the reference index (ties by `_id`, as the index ends).
    fn children(&self, parent: &Bson, newest: Option<u32>) -> Result<FindShape> {
        let order = self.moving.order_key()?;
        let dir = if newest.is_some() { -1 } else { 1 };
        Ok(FindShape {
            filter: doc! { self.moving.reference.name(): parent.clone() },
            sort: Some(doc! { order: dir, "_id": dir }),
            limit: newest.map(i64::from),
            ..FindShape::default()
        })
    }

    async fn read(&self, parent: &P::Id, newest: Option<u32>) -> Result<Vec<C>> {
        self.moving.check()?;
        let parent_bson = codec::id_to_bson::<P>(parent)?;
        // Outside the transaction: `listIndexes` once per `MoveReads`.
        let children = self.repo.children(self.moving.reference, parent);
        children.require_index().await?;
        let models = [P::NAME, C::NAME];
        let mut tries = 0;
        loop {
            let read = crate::txn::transact(
                self.repo.support(),
                &models,
                self.repo.database().client(),
                None,
                &self.config,
                (self, &parent_bson, newest),
                |s, (this, parent, newest)| {
                    Box::pin(async move { this.snapshot(s, parent, *newest).await })
                },
            )
            .await;
            match read {
                // The transaction writes nothing: one the server ended on
                // its own (a snapshot held under cache pressure, ended
                // without a retry label by some servers) is read again.
                Err(Error::Driver(_)) if tries < READ_RETRIES => {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(50) * tries).await;
                }
                read => return read,
            }
        }
    }

    /// The read, in the transaction of `session`.
    async fn snapshot(
        &self,
        session: &mut ClientSession,
        parent: &Bson,
        newest: Option<u32>,
    ) -> Result<Vec<C>> {
        let order = self.moving.order_key()?;
        let db = self.repo.database();
        let maker = Maker {
            path: self.moving.path,
            reference: self.moving.reference.name(),
            parent: parent.clone(),
            collection: P::COLLECTION,
            fresh_ids: takes_object_ids::<C>(),
        };
        let slice = newest.map(|n| -i32::try_from(n).unwrap_or(i32::MAX));
        let left = match array::read(db, session, P::COLLECTION, maker.path, parent, slice).await? {
            Found::Items { len, items } => {
                let items = items
                    .into_iter()
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(|e| unreadable(P::COLLECTION, e))?;
                let first = len.saturating_sub(items.len());
                let mut left = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    let (raw, item) = maker.child::<C>(item, first + i)?;
                    left.push(Read {
                        order: order_of(&raw, order),
                        item,
                    });
                }
                left
            }
            Found::NoParent | Found::NotAnArray(_) => Vec::new(),
        };
        let shape = self.children(parent, newest)?;
        let coll = self.repo.collection().clone_with_type::<RawDocumentBuf>();
        let mut find = coll.find(shape.filter).sort(shape.sort.unwrap_or_default());
        if let Some(limit) = shape.limit {
            find = find
                .limit(limit)
                .batch_size(u32::try_from(limit).unwrap_or(u32::MAX));
        }
        let mut moved = Vec::new();
        crate::exec::cursor::each_raw(
            find,
            Some(session),
            |raw| {
                moved.push(Read {
                    order: order_of(raw, order),
                    item: codec::decode::<C>(raw)?,
                });
                Ok(())
            },
            |e| Error::from_server(e, "read the children in", C::COLLECTION),
        )
        .await?;
        Ok(match newest {
            None => merge(moved, left, Ordering::Less),
            Some(n) => {
                let mut merged = merge(left.into_iter().rev().collect(), moved, Ordering::Greater);
                merged.truncate(n as usize);
                merged
            }
        })
    }
}

/// The order value of a stored document (`null` when it has none).
fn order_of(raw: &RawDocument, order: &str) -> Bson {
    match raw.get(order) {
        Ok(Some(value)) => Bson::try_from(value).unwrap_or(Bson::Null),
        _ => Bson::Null,
    }
}

fn unreadable(collection: &'static str, e: bson::error::Error) -> Error {
    Error::Model(format!(
        "the server's reply to a read of `{collection}` was malformed ({})",
        e.kind
    ))
}

/// `first` and `second`, each already in order, merged: `first`'s item
/// before `second`'s while their order values compare as `before` (or
/// tie).
fn merge<C>(first: Vec<Read<C>>, second: Vec<Read<C>>, before: Ordering) -> Vec<C> {
    let mut out = Vec::with_capacity(first.len() + second.len());
    let (mut a, mut b) = (first.into_iter().peekable(), second.into_iter().peekable());
    loop {
        let take_a = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => compare(&x.order, &y.order) != before.reverse(),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return out,
        };
        let next = if take_a { a.next() } else { b.next() };
        out.extend(next.map(|r| r.item));
    }
}
