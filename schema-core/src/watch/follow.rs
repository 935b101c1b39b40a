//! [`CopyFollower`]: the copies declared `#[copy(..., follow = "consumer")]`
//! kept by a named [`Consumer`] of their source's changes, after the
//! source commits, in transactions of a bounded number of holders.
//!
//! - **What it does with a change** of a source document (an insert, a
//!   replace, a delete, or an update that sets or removes the copied field,
//!   or a field around it): it reads the `_id`s of the next
//!   [`batch`](CopyFollower::batch) of holders whose reference holds the
//!   source's `_id` (a page by `_id`, outside any transaction), and runs
//!   one transaction per page that reads those holders and their sources
//!   and writes the copies that differ, stamped as
//!   [`Copies::update`](crate::Copies::update) stamps them. An update that
//!   touches no copied field is passed over without a read.
//! - **Exactly once, by recomputing**: the consumer's position moves past
//!   a change only once every batch of it has committed (the position is
//!   saved after the handler, as [`Consumer::run_at_least_once`] does). A
//!   kill mid-way hands the same change to the next run, which reads the
//!   holders again and writes only the copies that still differ: a copy is
//!   recomputed from the sources, never patched, so the holders already
//!   refreshed are read, not rewritten (their version is bumped once per
//!   change), and none is missed.
//! - **Staleness**: a holder's copy is stale from the source's commit
//!   until its batch commits. Each batch is reported to
//!   [`run_observed`](CopyFollower::run_observed) with the source change's
//!   wall time, so a caller can measure it (`BENCHMARKS.md` has the
//!   figures of 20,000 holders).
//! - A [`Change::Gap`] (changes lost from the server's history, with
//!   [`on_lost`](CopyFollower::on_lost)`(OnLost::RestartFromNow)`) is
//!   closed by [`Copies::repair`](crate::Copies::repair), a scan of every
//!   holder.
//! - **A holder killed mid-page**: each page's transaction runs on the
//!   session recorded with the consumer's lease, so the instance that
//!   takes the expired lease ends that transaction (see [`Lease`]) instead
//!   of waiting for the server to abort it.
//!   [`Copies::verify`](crate::Copies::verify) finds any drift in either
//!   mode.

use std::time::Instant;

use bson::{Bson, DateTime};
use futures_util::future::BoxFuture;
use mongodb::{ClientSession, Database};

use super::consumer::{Consumer, Lease, Ran, SessionListener, Stopper};
use super::{Change, Event};
use crate::error::{Error, Result};
use crate::model::{CopyFollow, CopySpec, Document};
use crate::relation::copies::Copies;
use crate::repo::Repo;
use crate::txn::{transaction, RetryPolicy};

/// How many holders one transaction of a [`CopyFollower`] refreshes unless
/// told otherwise ([`CopyFollower::batch`]).
pub const DEFAULT_FOLLOW_BATCH: usize = 500;

/// The copies of holder model `H` that follow source model `S` through a
/// named consumer (see the module docs): made by [`CopyFollower::new`],
/// run with [`run`](Self::run) until [stopped](Self::stopper).
///
/// ```no_run
/// # use schema_core::bson::oid::ObjectId;
/// # use schema_core::prelude::*;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Document, Serialize, Deserialize)]
/// # #[document(collection = "skus")]
/// # struct Sku { #[serde(rename = "_id")] id: ObjectId, color: String }
/// # #[derive(Document, Serialize, Deserialize)]
/// # #[document(collection = "products")]
/// # struct Product {
/// #     #[serde(rename = "_id")]
/// #     id: ObjectId,
/// #     #[many_to_many(one_sided, to = Sku, max = 100)]
/// #     skus: Vec<ObjectId>,
/// #     #[embed(max = 100)]
/// #     #[copy(from = skus, field = color, follow = "consumer")]
/// #     colors: Vec<String>,
/// # }
/// # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
/// use schema_core::CopyFollower;
///
/// let follower = CopyFollower::<Product, Sku>::new("product-colors", &db).batch(1000);
/// let stop = follower.stopper(); // stop.stop() ends the run
/// follower.run().await?;
/// # Ok(())
/// # }
/// ```
pub struct CopyFollower<H: Document, S: Document> {
    db: Database,
    consumer: Consumer<S>,
    copies: Copies<H>,
    specs: Vec<CopySpec>,
    batch: usize,
    policy: RetryPolicy,
}

impl<H: Document, S: Document> std::fmt::Debug for CopyFollower<H, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CopyFollower<{}, {}>({:?}, batch {})",
            H::NAME,
            S::NAME,
            self.consumer.name(),
            self.batch
        )
    }
}

/// One batch of holders a [`CopyFollower`] refreshed, in a transaction of
/// its own, as [`CopyFollower::run_observed`] reports it once committed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FollowedBatch {
    /// The source document's `_id`.
    pub source: Bson,
    /// The copy's stored name in the holder.
    pub field: &'static str,
    /// Holders read (the batch's size, or less for the last one).
    pub read: u64,
    /// Copies written (those that differed from their sources).
    pub written: u64,
    /// The server's wall time of the source's change.
    pub changed_at: Option<DateTime>,
    /// When the batch committed, in this process's clock.
    pub committed_at: Instant,
}

impl<H: Document, S: Document> CopyFollower<H, S> {
    /// The follower of `H`'s copies of `S`'s fields declared `follow =
    /// "consumer"`, as the consumer `name` of `S`'s changes in `db` (its
    /// position is the document `name` of [`CONSUMERS`](crate::CONSUMERS)),
    /// refreshing [`DEFAULT_FOLLOW_BATCH`] holders per transaction.
    pub fn new(name: impl Into<String>, db: &Database) -> Self {
        let copies = Copies::<H>::new(db);
        let specs = copies
            .specs()
            .iter()
            .copied()
            .filter(|s| s.source == S::COLLECTION && s.follow == CopyFollow::Consumer)
            .collect();
        let repo = Repo::<S>::new(db);
        CopyFollower {
            db: db.clone(),
            policy: repo.retry_policy().clone(),
            consumer: Consumer::new(name, &repo),
            copies,
            specs,
            batch: DEFAULT_FOLLOW_BATCH,
        }
    }

    /// Follows encrypted copies with `crypt`: the source's changes are
    /// read decrypted, and the copies computed and written as
    /// [`Copies::with_encryption`] does.
    #[cfg(feature = "encryption")]
    pub fn with_encryption(mut self, crypt: crate::crypt::Encryption) -> Self {
        let keys = crate::crypt::Keys::new(crypt);
        self.copies.set_keys(keys.clone());
        self.consumer.set_keys(keys);
        self
    }

    /// Refreshes at most `holders` holders per transaction (at least 1).
    pub fn batch(mut self, holders: usize) -> Self {
        self.batch = holders.max(1);
        self
    }

    /// Uses `lease` for the consumer instead of [`Lease::default`].
    pub fn lease(mut self, lease: Lease) -> Self {
        self.consumer = self.consumer.lease(lease);
        self
    }

    /// Retries each batch's transaction within `policy` instead of the
    /// source repository's.
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The consumer's name.
    pub fn name(&self) -> &str {
        self.consumer.name()
    }

    /// This instance's holder id, as the lease names it
    /// ([`Consumer::holder`]).
    pub fn holder(&self) -> &str {
        self.consumer.holder()
    }

    /// A handle that stops the run (after the batch being written).
    pub fn stopper(&self) -> Stopper {
        self.consumer.stopper()
    }

    /// Goes on past a source change the model cannot read (see
    /// [`Consumer::skip_undecodable`]).
    pub fn skip_undecodable(mut self) -> Self {
        self.consumer = self.consumer.skip_undecodable();
        self
    }

    /// What to do when the saved position is gone (see
    /// [`Consumer::on_lost`]): with [`OnLost::RestartFromNow`](crate::OnLost::RestartFromNow)
    /// the follower goes on from now and closes the gap with
    /// [`Copies::repair`] (a scan of every holder) before its next change.
    pub fn on_lost(mut self, policy: crate::watch::OnLost) -> Self {
        self.consumer = self.consumer.on_lost(policy);
        self
    }

    /// How the stream opens itself again after an error (see
    /// [`Consumer::recovery`]).
    pub fn recovery(mut self, recovery: crate::watch::Recovery) -> Self {
        self.consumer = self.consumer.recovery(recovery);
        self
    }

    /// Runs the follower until stopped, or until the first error it does
    /// not get past (as [`Consumer::run`], an [`Error::Consumer`] naming
    /// it); an error before the first change when `H` declares no copy of
    /// `S` with `follow = "consumer"`. Its future is `Send`: it can be
    /// `tokio::spawn`ed.
    pub async fn run(&self) -> Result<Ran> {
        self.run_observed(|_| {}).await
    }

    /// As [`run`](Self::run), calling `observe` after each batch commits.
    pub async fn run_observed(&self, observe: impl FnMut(&FollowedBatch) + Send) -> Result<Ran> {
        if self.specs.is_empty() {
            return Err(Error::Consumer {
                name: self.consumer.name().to_owned(),
                source: Box::new(Error::Model(format!(
                    "`{}` holds no copy of a field of `{}` declared `follow = \"consumer\"`: declare one with `#[copy(from = ..., field = ..., follow = \"consumer\")]`",
                    H::NAME,
                    S::NAME
                ))),
            });
        }
        self.consumer
            .run_with_session(Pages {
                follower: self,
                observe,
            })
            .await
    }

    /// Refreshes the holders of the source `event` changed, each page in a
    /// transaction on `session` (the one recorded with the lease).
    async fn handle(
        &self,
        session: &mut ClientSession,
        event: &Event<S>,
        observe: &mut (impl FnMut(&FollowedBatch) + Send),
    ) -> Result<()> {
        let (id, touched) = match &event.change {
            Change::Insert(doc) | Change::Replace(doc) => (doc.id(), None),
            Change::Delete { id, .. } => (id, None),
            Change::Update {
                id,
                changed,
                removed,
                ..
            } => {
                let paths: Vec<&str> = changed
                    .keys()
                    .map(String::as_str)
                    .chain(removed.iter().map(String::as_str))
                    .collect();
                (id, Some(paths))
            }
            Change::Gap(_) => {
                self.copies.repair().await?;
                return Ok(());
            }
            _ => return Ok(()),
        };
        let key = crate::model::codec::id_to_bson::<S>(id)?;
        for spec in &self.specs {
            if touched
                .as_ref()
                .is_some_and(|paths| !paths.iter().any(|p| overlaps(p, spec.source_field)))
            {
                continue;
            }
            self.follow(session, spec, &key, event.wall_time, observe)
                .await?;
        }
        Ok(())
    }

    /// Refreshes the copy `spec` of every holder of the source `key`, one
    /// transaction per batch.
    async fn follow(
        &self,
        session: &mut ClientSession,
        spec: &CopySpec,
        key: &Bson,
        changed_at: Option<DateTime>,
        observe: &mut (impl FnMut(&FollowedBatch) + Send),
    ) -> Result<()> {
        let client = self.db.client();
        let mut after: Option<Bson> = None;
        loop {
            let ids = self
                .copies
                .holder_ids(spec, key, after.as_ref(), self.batch)
                .await?;
            let Some(last) = ids.last().cloned() else {
                return Ok(());
            };
            let full = ids.len() == self.batch;
            let (read, written) = transaction(client)
                .session(&mut *session)
                .with_retry(self.policy.clone())
                .run_with((&self.copies, spec, &ids), |s, (copies, spec, ids)| {
                    Box::pin(copies.refresh_ids(s, spec, ids.to_vec()))
                })
                .await?;
            observe(&FollowedBatch {
                source: key.clone(),
                field: spec.field,
                read,
                written,
                changed_at,
                committed_at: Instant::now(),
            });
            if !full {
                return Ok(());
            }
            after = Some(last);
        }
    }
}

/// A follower's work on each change, as the consumer's listener with the
/// lease's session.
struct Pages<'f, H: Document, S: Document, O> {
    follower: &'f CopyFollower<H, S>,
    observe: O,
}

impl<H, S, O> SessionListener<S> for Pages<'_, H, S, O>
where
    H: Document,
    S: Document,
    O: FnMut(&FollowedBatch) + Send,
{
    fn handle<'a>(
        &'a mut self,
        session: &'a mut ClientSession,
        event: &'a Event<S>,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(self.follower.handle(session, event, &mut self.observe))
    }
}

/// Whether a change at stored path `path` may change the field at `field`
/// (the same path, one inside it, or one around it).
fn overlaps(path: &str, field: &str) -> bool {
    let inside = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    };
    inside(path, field) || inside(field, path)
}

#[cfg(test)]
mod tests {
    use super::overlaps;

    #[test]
    fn a_path_overlaps_itself_its_parents_and_its_children() {
        assert!(overlaps("color", "color"));
        assert!(overlaps("color.hex", "color"));
        assert!(overlaps("details", "details.color"));
        assert!(!overlaps("colors", "color"));
        assert!(!overlaps("size", "color"));
    }
}
