//! Transactions: the topology check, and the runner that retries on
//! transient errors.
//!
//! [`run_in_transaction`] starts a session, runs a body inside a
//! multi-document transaction and commits it. It retries the whole body when
//! the driver or the server labels an error `TransientTransactionError` (a
//! write conflict, a failover, a server that cannot be reached: the driver
//! labels a failed server selection inside a transaction so) and retries the
//! commit alone on `UnknownTransactionCommitResult`, within a
//! [`RetryPolicy`]: a number of attempts and a deadline, then
//! [`Error::TransactionRetriesExhausted`]. The labels survive the helpers'
//! error conversion ([`Error::has_label`]), so a short outage is ridden out:
//! each attempt waits up to the client's `serverSelectionTimeoutMS`, and
//! attempts go on until the deadline. Any other error aborts the transaction
//! and is returned as it is, so nothing the body wrote is kept.
//!
//! The body is a closure called once per attempt with the session and a
//! context value, as the driver's `and_run` does, so it can borrow what it
//! needs without cloning. The helpers' actions join it when given the
//! session (`repo.insert(&doc).session(&mut *s).await?`, see
//! [`action`](crate::action)); so do the driver's:
//!
//! ```no_run
//! # async fn demo(client: mongodb::Client) -> schema_core::Result<()> {
//! use bson::{doc, Document};
//! use schema_core::txn::{run_in_transaction, RetryPolicy};
//!
//! let db = client.database("school");
//! let students = db.collection::<Document>("students");
//! let courses = db.collection::<Document>("courses");
//! run_in_transaction(&client, &RetryPolicy::default(), (&students, &courses), |s, (students, courses)| {
//!     Box::pin(async move {
//!         students
//!             .update_one(doc! { "_id": "s1" }, doc! { "$addToSet": { "courseIds": "c1" } })
//!             .session(&mut *s)
//!             .await?;
//!         courses
//!             .update_one(doc! { "_id": "c1" }, doc! { "$addToSet": { "studentIds": "s1" } })
//!             .session(&mut *s)
//!             .await?;
//!         Ok(())
//!     })
//! })
//! .await
//! # }
//! ```

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bson::doc;
use futures_util::future::BoxFuture;
use mongodb::options::{Acknowledgment, TransactionOptions, WriteConcern};
use mongodb::{Client, ClientSession};

use crate::error::label::{TRANSIENT_TRANSACTION_ERROR, UNKNOWN_TRANSACTION_COMMIT_RESULT};
use crate::error::{code, Error, Result};

/// The write concern every transaction of the helpers commits with, whatever
/// the client's, database's or session's default: `{ w: "majority", j: true }`.
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

/// The options every transaction starts with: [`commit_write_concern`].
fn transaction_options() -> TransactionOptions {
    TransactionOptions::builder()
        .write_concern(commit_write_concern())
        .build()
}

/// Fails with [`Error::TransactionsUnsupported`] when the server is a
/// standalone (no replica set name, not a mongos): one `hello` round trip.
pub(crate) async fn require_transactions(client: &Client, models: &[&'static str]) -> Result<()> {
    if supports_transactions(client).await? {
        Ok(())
    } else {
        Err(Error::TransactionsUnsupported {
            models: models.to_vec(),
        })
    }
}

/// Sends `hello` and reads whether the deployment runs multi-document transactions.
async fn supports_transactions(client: &Client) -> Result<bool> {
    let hello = client
        .database("admin")
        .run_command(doc! { "hello": 1 })
        .await
        .map_err(|e| Error::from_server(e, "run hello on", "admin"))?;
    let replica_set = hello.get_str("setName").is_ok();
    let mongos = hello.get_str("msg").ok() == Some("isdbgrid");
    Ok(replica_set || mongos)
}

/// What the transactions of one helper ([`Repo`](crate::Repo),
/// [`Links`](crate::Links)) share with its clones: whether the deployment runs
/// multi-document transactions, asked once, so after their first transaction
/// they send no `hello` of their own; and how many attempts they retried.
///
/// The driver does not refuse a transaction on a directly connected
/// standalone, and some servers accept one there; asking before the first
/// write refuses a standalone with nothing written.
#[derive(Debug, Clone, Default)]
pub(crate) struct TxnState(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    supported: tokio::sync::OnceCell<bool>,
    retries: AtomicU64,
}

impl TxnState {
    /// How many attempts (whole bodies or commits) the transactions run with
    /// this state have retried so far.
    pub(crate) fn retries(&self) -> u64 {
        self.0.retries.load(Ordering::Relaxed)
    }

    /// Fails with [`Error::TransactionsUnsupported`] on a standalone.
    async fn require(&self, client: &Client, models: &[&'static str]) -> Result<()> {
        let supported = self
            .0
            .supported
            .get_or_try_init(|| supports_transactions(client))
            .await?;
        if *supported {
            Ok(())
        } else {
            Err(Error::TransactionsUnsupported {
                models: models.to_vec(),
            })
        }
    }
}

/// How long [`run_in_transaction`] keeps retrying.
///
/// The default allows 60 attempts within 30 seconds (the server aborts a
/// transaction that lives longer than 60), with a jittered backoff of
/// 5 ms x 1.5^attempt capped at 500 ms between attempts, as the driver's own
/// convenient transaction API does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The most times the body runs, commit retries included (at least 1).
    pub max_attempts: u32,
    /// No new attempt starts after this much time since the first.
    pub deadline: Duration,
    /// The first backoff; each next one is 1.5 times longer, with jitter.
    pub initial_backoff: Duration,
    /// The longest backoff.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 60,
            deadline: Duration::from_secs(30),
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(500),
        }
    }
}

impl RetryPolicy {
    /// A policy with `max_attempts` and the default deadline and backoff.
    pub fn attempts(max_attempts: u32) -> Self {
        RetryPolicy {
            max_attempts,
            ..RetryPolicy::default()
        }
    }

    /// The pause before attempt number `attempt` (1-based; none before the first).
    fn backoff(&self, attempt: u32) -> Duration {
        if attempt <= 1 {
            return Duration::ZERO;
        }
        let exp = self
            .initial_backoff
            .mul_f64(1.5f64.powi(attempt.saturating_sub(2).min(30) as i32));
        exp.min(self.max_backoff).mul_f64(jitter())
    }
}

/// A number in [0, 1) that differs between calls and threads.
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// The body of a transaction: called once per attempt with the session and
/// the context.
pub trait TxnBody<C, T>:
    for<'s> FnMut(&'s mut ClientSession, &'s mut C) -> BoxFuture<'s, Result<T>>
{
}
impl<C, T, F> TxnBody<C, T> for F where
    F: for<'s> FnMut(&'s mut ClientSession, &'s mut C) -> BoxFuture<'s, Result<T>>
{
}

/// Starts a session and runs `body` in a transaction on it, retrying as
/// `policy` allows (see the module docs). A standalone's refusal (the
/// driver's, or the server's "Transaction numbers are only allowed on a
/// replica set member" on the first write, which is then not applied) is
/// returned as [`Error::TransactionsUnsupported`]. The helpers also ask the
/// server once (`hello`) before their first transaction, since some servers
/// run as a standalone and accept transactions.
pub async fn run_in_transaction<C, T, F>(
    client: &Client,
    policy: &RetryPolicy,
    context: C,
    body: F,
) -> Result<T>
where
    F: TxnBody<C, T>,
{
    in_transaction_span(run_new(client, Tries::new(policy, None), context, body)).await
}

/// A transaction the caller runs itself, in its own span with the
/// `tracing` feature (see the `trace` module).
/// Without the feature, `run` itself.
fn in_transaction_span<T>(run: impl Future<Output = Result<T>>) -> impl Future<Output = Result<T>> {
    #[cfg(feature = "tracing")]
    let run = crate::trace::in_span(crate::trace::transaction_span(), Box::pin(run));
    run
}

/// [`run_in_transaction`] with the attempts already counted.
async fn run_new<C, T, F>(client: &Client, tries: Tries<'_>, context: C, body: F) -> Result<T>
where
    F: TxnBody<C, T>,
{
    let mut session = client
        .start_session()
        .await
        .map_err(|e| Error::from_server(e, "start a session on", "the deployment"))?;
    retry_loop(&mut session, tries, None, context, body).await
}

/// Runs `body` in a new transaction on the caller's `session`, retrying as
/// `policy` allows. The session must not already be in a transaction.
pub async fn run_with_session<C, T, F>(
    session: &mut ClientSession,
    policy: &RetryPolicy,
    context: C,
    body: F,
) -> Result<T>
where
    F: TxnBody<C, T>,
{
    in_transaction_span(retry_loop(
        session,
        Tries::new(policy, None),
        None,
        context,
        body,
    ))
    .await
}

/// Runs `body` in the caller's transaction when `session` is already in one
/// (once, no retry: retrying is the caller's business, and on error the
/// caller must abort), otherwise in a transaction of its own on that session,
/// retried as `policy` allows.
pub async fn join_or_run<C, T, F>(
    session: &mut ClientSession,
    policy: &RetryPolicy,
    context: C,
    body: F,
) -> Result<T>
where
    F: TxnBody<C, T>,
{
    in_transaction_span(join_or_run_counted(
        session,
        Tries::new(policy, None),
        context,
        body,
    ))
    .await
}

async fn join_or_run_counted<C, T, F>(
    session: &mut ClientSession,
    tries: Tries<'_>,
    mut context: C,
    mut body: F,
) -> Result<T>
where
    F: TxnBody<C, T>,
{
    match session
        .start_transaction()
        .with_options(transaction_options())
        .await
    {
        Err(e) if already_in_progress(&e) => body(session, &mut context).await,
        started => {
            let started = started.map_err(start_error);
            retry_loop(session, tries, Some(started), context, body).await
        }
    }
}

/// How every helper runs its transaction: checks the topology once per
/// `state` (naming `models` in the error) before anything is written, then
/// runs `body` in a transaction of its own ([`run_in_transaction`]) when
/// `session` is `None`, or on the caller's session ([`join_or_run`]),
/// counting its retries in `state`. An unreachable server is waited for, the
/// check included, until the policy's deadline.
pub(crate) async fn transact<C, T, F>(
    state: &TxnState,
    models: &[&'static str],
    client: &Client,
    session: Option<&mut ClientSession>,
    policy: &RetryPolicy,
    context: C,
    body: F,
) -> Result<T>
where
    F: TxnBody<C, T>,
{
    let mut tries = Tries::new(policy, Some(&state.0.retries));
    loop {
        match state.require(client, models).await {
            Ok(()) => break,
            // Nothing was sent: asking again is safe.
            Err(err) if is_unreachable(&err) => tries.next(err).await?,
            Err(err) => return Err(err),
        }
    }
    match session {
        Some(session) => join_or_run_counted(session, tries, context, body).await,
        None => run_new(client, tries, context, body).await,
    }
}

/// A standalone mongod refuses the first write of a transaction with
/// `IllegalOperation`.
fn is_standalone_refusal(err: &Error) -> bool {
    err.code() == Some(code::ILLEGAL_OPERATION)
        && matches!(err, Error::Driver(e) if e.to_string().contains("replica set"))
}

/// The server could not be selected: nothing was sent.
fn is_unreachable(err: &Error) -> bool {
    matches!(err, Error::Unreachable { .. })
}

fn already_in_progress(e: &mongodb::error::Error) -> bool {
    matches!(e.kind.as_ref(), mongodb::error::ErrorKind::Transaction { message, .. }
        if message.contains("already in progress"))
}

/// Why a transaction could not start (the driver may select a server to
/// learn whether the deployment runs transactions).
fn start_error(e: mongodb::error::Error) -> Error {
    match e.kind.as_ref() {
        mongodb::error::ErrorKind::Transaction { message, .. }
            if message.contains("not supported") =>
        {
            Error::TransactionsUnsupported { models: Vec::new() }
        }
        _ => Error::from_server(e, "start a transaction on", "the deployment"),
    }
}

/// Why a transaction runs again after `err` (see [`retry_loop`]).
#[cfg(feature = "tracing")]
fn retry_reason(err: &Error) -> &'static str {
    if is_unreachable(err) {
        "server unreachable"
    } else if err.has_label(UNKNOWN_TRANSACTION_COMMIT_RESULT) {
        UNKNOWN_TRANSACTION_COMMIT_RESULT
    } else {
        TRANSIENT_TRANSACTION_ERROR
    }
}

/// The attempts of one transaction: how many so far, since when, the
/// policy that bounds them, and the helper's retry count to add to.
struct Tries<'p> {
    policy: &'p RetryPolicy,
    started: Instant,
    attempt: u32,
    counter: Option<&'p AtomicU64>,
}

impl<'p> Tries<'p> {
    fn new(policy: &'p RetryPolicy, counter: Option<&'p AtomicU64>) -> Self {
        Tries {
            policy,
            started: Instant::now(),
            attempt: 1,
            counter,
        }
    }

    /// Waits the backoff before the next attempt after the transient error
    /// `last`, or, when the policy allows no other attempt, gives up with
    /// [`Error::TransactionRetriesExhausted`] holding `last`.
    async fn next(&mut self, last: Error) -> Result<()> {
        let next = self.attempt + 1;
        let backoff = self.policy.backoff(next);
        if next > self.policy.max_attempts.max(1)
            || self.started.elapsed() + backoff >= self.policy.deadline
        {
            return Err(Error::TransactionRetriesExhausted {
                attempts: self.attempt,
                elapsed: self.started.elapsed(),
                last: Box::new(last),
            });
        }
        if let Some(counter) = self.counter {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        #[cfg(feature = "tracing")]
        crate::trace::retrying(next, retry_reason(&last), &last);
        tokio::time::sleep(backoff).await;
        self.attempt = next;
        Ok(())
    }
}

/// The loop proper. `started` is the outcome of the first
/// `startTransaction` when the caller already tried it.
async fn retry_loop<C, T, F>(
    session: &mut ClientSession,
    mut tries: Tries<'_>,
    mut started: Option<Result<()>>,
    mut context: C,
    mut body: F,
) -> Result<T>
where
    F: TxnBody<C, T>,
{
    'transaction: loop {
        let start = match started.take() {
            Some(outcome) => outcome,
            None => session
                .start_transaction()
                .with_options(transaction_options())
                .await
                .map_err(start_error),
        };
        match start {
            Ok(()) => {}
            // Nothing was sent: starting again is safe.
            Err(err) if is_unreachable(&err) => {
                tries.next(err).await?;
                continue;
            }
            Err(err) => return Err(err),
        }
        let value = match body(session, &mut context).await {
            Ok(value) => value,
            Err(err) => {
                // The server may already have aborted it; an error here changes nothing.
                let _ = session.abort_transaction().await;
                if is_standalone_refusal(&err) {
                    return Err(Error::TransactionsUnsupported { models: Vec::new() });
                }
                if !err.has_label(TRANSIENT_TRANSACTION_ERROR) {
                    return Err(err);
                }
                tries.next(err).await?;
                continue;
            }
        };
        loop {
            let err = match session.commit_transaction().await {
                Ok(()) => return Ok(value),
                Err(e) => Error::from_server(e, "commit a transaction on", "the deployment"),
            };
            if err.has_label(UNKNOWN_TRANSACTION_COMMIT_RESULT)
                && err.code() != Some(code::MAX_TIME_MS_EXPIRED)
            {
                tries.next(err).await?;
                continue;
            }
            if err.has_label(TRANSIENT_TRANSACTION_ERROR) {
                tries.next(err).await?;
                continue 'transaction;
            }
            return Err(err);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy::default();
        assert_eq!(p.backoff(1), Duration::ZERO);
        for attempt in 2..40 {
            assert!(p.backoff(attempt) <= p.max_backoff);
        }
    }

    #[test]
    fn jitter_is_in_unit_interval() {
        for _ in 0..100 {
            let j = jitter();
            assert!((0.0..1.0).contains(&j));
        }
    }
}
