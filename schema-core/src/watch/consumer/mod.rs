//! [`Consumer`]: a named reader of a model's changes that keeps its
//! position in the database, so that each change is handled once across
//! restarts, crashes and several running instances.
//!
//! - **Its position**: one document per consumer name in the framework's
//!   collection [`CONSUMERS`] (`schema_consumers`): the resume token of the
//!   last change handled and its cluster time, the number handled, and the
//!   lease. On start a consumer resumes just after that token; a consumer
//!   that never ran starts from now and saves that point at once.
//! - **Exactly once** ([`Consumer::run`]): the handler gets the session of
//!   a transaction (run by the framework's transaction runner, retried on
//!   `TransientTransactionError` and `UnknownTransactionCommitResult` as the
//!   drivers' specification says) and does its writes with it; the same
//!   transaction moves the position from the previous token to the
//!   change's, guarded by that previous token and by the lease. A kill at
//!   any point leaves both or neither; an attempt that finds the position
//!   already moved to the change's token does nothing (so a commit whose
//!   result was unknown never applies the handler twice).
//! - **At least once** ([`Consumer::run_at_least_once`]): a handler without
//!   database writes (a cache to drop, a message to send) runs first, and
//!   the position is saved after it returns. A crash between the two
//!   hands the change again to the next run: the handler must tolerate
//!   seeing a change twice.
//! - **The lease** ([`Lease`]): several instances of one consumer may run;
//!   the one holding the lease handles, the others wait. See [`Lease`] for
//!   the takeover bound.

mod handler;
mod lease;
mod position;
mod run;

pub use handler::{Handler, Listener};
pub use lease::Lease;
pub(crate) use run::SessionListener;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bson::oid::ObjectId;
use bson::Document as BsonDocument;
use mongodb::options::TransactionOptions;
use tokio::sync::Notify;

use crate::error::Result;
use crate::model::Document;
use crate::repo::Repo;
use crate::txn::RetryPolicy;
use crate::typed::filter::Filter;
use crate::watch::{OnLost, Recovery};

/// The framework's collection of consumer positions: one document per
/// consumer name (`_id`), holding `token` (the resume token of the last
/// change handled), `clusterTime`, `handled` (how many changes), `holder`
/// and `leaseUntil` (the lease, in the server's clock).
pub const CONSUMERS: &str = "schema_consumers";

/// A named consumer of model `M`'s changes (see the module docs): made by
/// [`Consumer::new`], set up with [`lease`](Self::lease),
/// [`filter`](Self::filter) and the transactions' options, then run with
/// [`run`](Self::run) (exactly once, with the handler's writes) or
/// [`run_at_least_once`](Self::run_at_least_once).
///
/// ```no_run
/// # use schema_core::prelude::*;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Document, Serialize, Deserialize, Debug)]
/// # #[document(collection = "orders")]
/// # struct Order {
/// #     #[serde(rename = "_id")]
/// #     id: String,
/// #     status: String,
/// # }
/// # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
/// use schema_core::bson::{doc, Document as BsonDocument};
/// use schema_core::{Change, Consumer};
///
/// let orders = Repo::<Order>::new(&db);
/// let counts = db.collection::<BsonDocument>("order_counts");
/// let consumer = Consumer::new("order-counter", &orders);
/// let stop = consumer.stopper(); // stop.stop() ends the run cleanly
/// consumer
///     .run(&counts, |session, counts, event| {
///         Box::pin(async move {
///             if let Change::Insert(order) = &event.change {
///                 counts
///                     .update_one(doc! { "_id": &order.status }, doc! { "$inc": { "n": 1 } })
///                     .upsert(true)
///                     .session(session)
///                     .await?;
///             }
///             Ok(())
///         })
///     })
///     .await?;
/// # Ok(())
/// # }
/// ```
///
/// A consumer is `Send` and `Sync`, and so are its runs' futures when the
/// handler is: a service runs one in the background with `tokio::spawn`
/// (an `Arc<Consumer<M>>`, or a consumer moved into the task) and stops it
/// with its [`stopper`](Self::stopper) on shutdown.
pub struct Consumer<M: Document> {
    name: String,
    repo: Repo<M>,
    holder: String,
    lease: Lease,
    /// The filter as a document (or why it could not be one).
    filter: Option<Result<BsonDocument>>,
    full_on_update: bool,
    skip_undecodable: bool,
    on_lost: OnLost,
    recovery: Recovery,
    options: TransactionOptions,
    policy: RetryPolicy,
    stop: Stop,
}

impl<M: Document> std::fmt::Debug for Consumer<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Consumer<{}>({:?} as {})",
            M::NAME,
            self.name,
            self.holder
        )
    }
}

impl<M: Document> Consumer<M> {
    /// The encryption handle its reads decrypt with (see
    /// [`CopyFollower::with_encryption`](crate::CopyFollower::with_encryption)).
    #[cfg(feature = "encryption")]
    pub(crate) fn set_keys(&mut self, keys: crate::crypt::Keys) {
        self.repo.keys = keys;
    }

    /// The consumer `name` of `repo`'s changes (its position is the
    /// document `name` of [`CONSUMERS`] in the repository's database), with
    /// the default [`Lease`], the repository's retry policy and transaction
    /// options (`{ w: "majority", j: true }` unless it was given others).
    /// Each value made is an instance of its own, with a holder id of its
    /// own ([`holder`](Self::holder)).
    pub fn new(name: impl Into<String>, repo: &Repo<M>) -> Self {
        Consumer {
            name: name.into(),
            repo: repo.clone(),
            holder: format!("{}-{}", std::process::id(), ObjectId::new().to_hex()),
            lease: Lease::default(),
            filter: None,
            full_on_update: false,
            skip_undecodable: false,
            on_lost: OnLost::default(),
            recovery: Recovery::default(),
            options: repo.transaction_options(),
            policy: repo.retry_policy().clone(),
            stop: Stop::default(),
        }
    }

    /// Uses `lease` instead of [`Lease::default`].
    pub fn lease(mut self, lease: Lease) -> Self {
        self.lease = lease;
        self
    }

    /// Handles only the changes `filter` matches (as
    /// [`Watch::filter`](crate::Watch::filter)); the position still moves
    /// past the others, as the server skips them.
    pub fn filter(mut self, filter: impl Into<Filter<M>>) -> Self {
        self.filter = Some(crate::watch::filter::and_filter(
            self.filter.take(),
            filter.into(),
        ));
        self
    }

    /// An update carries the whole document (as
    /// [`Watch::full_document_on_update`](crate::Watch::full_document_on_update)).
    pub fn full_document_on_update(mut self) -> Self {
        self.full_on_update = true;
        self
    }

    /// Goes on past a change the model cannot read (as
    /// [`Watch::skip_undecodable`](crate::Watch::skip_undecodable)): the
    /// change is not handled, the position moves past it with the next
    /// change handled, and it is counted in [`Ran::skipped`]. Without it the
    /// run stops with that error ([`ChangeError::Undecodable`](crate::ChangeError::Undecodable)).
    pub fn skip_undecodable(mut self) -> Self {
        self.skip_undecodable = true;
        self
    }

    /// What to do when the saved position is gone from the server's
    /// history, or the collection was dropped or renamed (as
    /// [`Watch::on_lost`](crate::Watch::on_lost); the default stops with
    /// [`ChangeError::Lost`](crate::ChangeError::Lost)). With
    /// [`OnLost::RestartFromNow`] the handler gets a [`Change::Gap`](crate::Change::Gap)
    /// (handled and saved like any change) and then the changes from now.
    pub fn on_lost(mut self, policy: OnLost) -> Self {
        self.on_lost = policy;
        self
    }

    /// How the stream opens itself again after an error (as
    /// [`Watch::recovery`](crate::Watch::recovery)).
    pub fn recovery(mut self, recovery: Recovery) -> Self {
        self.recovery = recovery;
        self
    }

    /// Starts the handlers' transactions with `options` instead of the
    /// repository's.
    pub fn transaction_options(mut self, options: TransactionOptions) -> Self {
        self.options = options;
        self
    }

    /// Retries the handlers' transactions within `policy` instead of the
    /// repository's.
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The consumer's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// This instance's holder id (`pid-objectid`), as the lease names it.
    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// A handle that stops this instance's run: the change being handled
    /// is finished, the lease released, and the run returns its [`Ran`].
    pub fn stopper(&self) -> Stopper {
        Stopper(self.stop.clone())
    }
}

/// What a run did, returned when it was stopped ([`Consumer::stopper`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Ran {
    /// Changes handled (and their position saved) by this run.
    pub handled: u64,
    /// Changes found already handled (the position already past them).
    pub already_handled: u64,
    /// How many times this instance took the lease.
    pub leases_taken: u64,
    /// How many times it found the lease lost while it held it (expired
    /// and taken by another, or its renewal failed), and went back to
    /// waiting.
    pub leases_lost: u64,
    /// Changes the model could not read, passed over
    /// ([`Consumer::skip_undecodable`]).
    pub skipped: u64,
    /// How many times taking an expired lease ended the transaction its
    /// holder left open (see [`Lease`]).
    pub sessions_ended: u64,
}

/// Stops a running [`Consumer`] ([`Consumer::stopper`]).
#[derive(Debug, Clone)]
pub struct Stopper(Stop);

impl Stopper {
    /// Asks the run to stop: it finishes the change it is handling,
    /// releases the lease and returns.
    pub fn stop(&self) {
        self.0.flag.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }
}

/// The stop flag a run checks, and its wake-up.
#[derive(Debug, Clone, Default)]
struct Stop {
    flag: Arc<AtomicBool>,
    notify: Arc<Notify>,
}

impl Stop {
    fn asked(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Sleeps `wait`, or less when asked to stop.
    async fn sleep(&self, wait: Duration) {
        let notified = self.notify.notified();
        if self.asked() {
            return;
        }
        let _ = tokio::time::timeout(wait, notified).await;
    }
}
