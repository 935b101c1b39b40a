//! Transactions by the drivers' own contract: the convenient-transactions
//! specification (`withTransaction`), plus what the framework adds.
//!
//! [`transaction`] starts a session (or takes the caller's,
//! [`Transaction::session`]), runs a body inside a multi-document
//! transaction and commits it, as the specification's `withTransaction`
//! does:
//!
//! - the options given with [`Transaction::options`] start the transaction
//!   (else the session's defaults, which are the client's);
//! - an error labelled `TransientTransactionError` (a write conflict, a
//!   failover, a server that cannot be reached) runs the whole transaction
//!   again after a jittered backoff, `UnknownTransactionCommitResult` sends
//!   the commit again at once (not after `MaxTimeMSExpired`), any other error
//!   aborts the transaction and is returned as it is;
//! - a body that commits or aborts the transaction itself ends the run: the
//!   runner sends nothing more and returns the body's value;
//! - past the [`RetryPolicy`]'s deadline (120 s by default) the last error is
//!   returned inside [`Error::TransactionRetriesExhausted`], which answers
//!   [`Error::has_label`] and [`Error::code`] with that error's labels and
//!   code.
//!
//! The body may run more than once, one more time per retry: keep it free of
//! effects outside the transaction, and return every command error it meets
//! (a swallowed error may have aborted the transaction on the server, and
//! the commit then fails with `NoSuchTransaction`).
//!
//! ```no_run
//! # async fn demo(client: mongodb::Client) -> schema_core::Result<()> {
//! use schema_core::bson::{doc, Document};
//! use schema_core::transaction;
//!
//! let db = client.database("school");
//! let students = db.collection::<Document>("students");
//! let courses = db.collection::<Document>("courses");
//! let linked = transaction(&client)
//!     .run(async |s| {
//!         students
//!             .update_one(doc! { "_id": "s1" }, doc! { "$addToSet": { "courseIds": "c1" } })
//!             .session(&mut *s)
//!             .await?;
//!         courses
//!             .update_one(doc! { "_id": "c1" }, doc! { "$addToSet": { "studentIds": "s1" } })
//!             .session(&mut *s)
//!             .await?;
//!         Ok("linked")
//!     })
//!     .await?;
//! assert_eq!(linked, "linked");
//! # Ok(())
//! # }
//! ```
//!
//! The body borrows what it needs. To hand the whole run to
//! `tokio::spawn`, its future must be `Send`, and today's compiler cannot
//! show that of an async closure that holds a borrow (rust-lang/rust#96865,
//! "implementation of `Send` is not general enough"): move owned values
//! into it (`async move |s| ..`; a `Collection` or a `Repo` clones cheaply),
//! or use [`Transaction::run_with`], which passes a context to a closure
//! returning a boxed future.
//!
//! The framework's helpers ([`Links::link`](crate::Links), the cascading
//! [`Repo::delete`](crate::Repo), `push_keeping`) run their own
//! transactions through the same runner, with `{ w: "majority", j: true }`
//! ([`helper_options`]) unless the helper was given other options
//! (`Repo::with_transaction_options`, `Links::with_transaction_options`);
//! given a session with a transaction in progress, they join it instead.
//! They add two things the specification does not have: a server that
//! cannot be selected before anything was sent (their once-per-helper
//! `hello`) is waited for until the deadline, and their retries are counted
//! per helper (`Repo::retries`, `Links::retries`).

mod builder;
mod helper;
mod policy;
mod runner;
mod topology;

/// Runs a driver action with the session when there is one.
macro_rules! with_session {
    ($action:expr, $session:expr) => {
        match $session {
            Some(s) => $action.session(&mut *s).await,
            None => $action.await,
        }
    };
}
pub(crate) use with_session;

use mongodb::options::{Acknowledgment, TransactionOptions, WriteConcern};
use mongodb::{Client, ClientSession};

pub use builder::{transaction, Transaction, TxnBody};
pub(crate) use helper::transact;
pub use policy::{Jitter, RetryPolicy};
pub(crate) use topology::{require_transactions, TxnState};

use crate::error::{Error, Result};

/// The write concern the helpers' own transactions commit with unless told
/// otherwise: `{ w: "majority", j: true }`.
///
/// A link writes both sides in one transaction, so its acknowledgement must
/// mean both sides are kept: `majority` keeps the commit through a failover
/// (a commit acknowledged by the primary alone can be rolled back), and
/// `j: true` has each of those nodes journal it before answering, so it
/// survives a crash (`kill -9`, power loss) too. It costs a journal flush per
/// commit. See RELIABILITY.md for what a crash loses without it.
pub fn commit_write_concern() -> WriteConcern {
    WriteConcern::builder()
        .w(Acknowledgment::Majority)
        .journal(true)
        .build()
}

/// The options the helpers start their own transactions with when given
/// none: [`commit_write_concern`], and the session's defaults for the rest.
/// Pass them to [`Transaction::options`] for a transaction of your own that
/// commits as durably.
pub fn helper_options() -> TransactionOptions {
    TransactionOptions::builder()
        .write_concern(commit_write_concern())
        .build()
}

/// How one helper runs its own transactions: its retry policy and the
/// options it was given, which win over [`helper_options`] field by field.
#[derive(Debug, Clone, Default)]
pub(crate) struct TxnConfig {
    pub(crate) policy: RetryPolicy,
    pub(crate) options: Option<TransactionOptions>,
}

impl TxnConfig {
    /// The options its transactions start with: those it was given, with
    /// [`commit_write_concern`] where they set no write concern.
    pub(crate) fn options(&self) -> TransactionOptions {
        let mut options = self.options.clone().unwrap_or_default();
        if options.write_concern.is_none() {
            options.write_concern = Some(commit_write_concern());
        }
        options
    }
}

pub(crate) async fn start_session(client: &Client) -> Result<ClientSession> {
    client
        .start_session()
        .await
        .map_err(|e| Error::from_server(e, "start a session on", "the deployment"))
}
