//! The attempts of one transaction, step by step as the convenient-transactions
//! specification (`withTransaction`) numbers them: [`Attempts::begin`] is
//! steps 2 to 4 (the backoff, then `startTransaction`), the caller runs the
//! body (step 5), and [`Attempts::finish`] is steps 6 to 11 (abort after an
//! error, return at once when the body ended the transaction itself, commit,
//! retry the commit or the whole transaction).
//!
//! What the framework adds, each where it happens: a server that cannot be
//! selected before anything was sent (`startTransaction` learning whether
//! the deployment runs transactions) is waited for like a transient error;
//! an optional cap on the number of attempts; the retries counted in the
//! helper's own counter; and, with the `tracing` feature, an event per retry.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use mongodb::options::TransactionOptions;
use mongodb::ClientSession;

use super::policy::RetryPolicy;
use crate::error::label::{TRANSIENT_TRANSACTION_ERROR, UNKNOWN_TRANSACTION_COMMIT_RESULT};
use crate::error::{code, Error, Result};

/// What [`Attempts::finish`] decided.
pub(super) enum Step<T> {
    /// The transaction is over: committed, or ended by the body itself.
    Done(T),
    /// Run the whole transaction again ([`Attempts::begin`] pauses first).
    Again,
}

/// The attempts of one transaction: how many so far, since when, the
/// policy that bounds them, the last transient error, and the helper's
/// retry count to add to.
pub(super) struct Attempts<'p> {
    policy: &'p RetryPolicy,
    started: Instant,
    /// `transactionAttempt`: how many times the transaction was started.
    starts: u32,
    /// Every attempt, commit retries included (what a trace reports).
    tries: u32,
    /// The error the next attempt retries after.
    last: Option<Error>,
    /// The first transaction was started before the runner took over.
    pre_started: bool,
    counter: Option<&'p AtomicU64>,
}

impl<'p> Attempts<'p> {
    pub(super) fn new(policy: &'p RetryPolicy, counter: Option<&'p AtomicU64>) -> Self {
        Attempts {
            policy,
            started: Instant::now(),
            starts: 0,
            tries: 0,
            last: None,
            pre_started: false,
            counter,
        }
    }

    /// Steps 2 to 4: after a transient error, the backoff (or, past the
    /// deadline, [`Error::TransactionRetriesExhausted`] with that error's
    /// labels); then `startTransaction` with `options` (`None`: the
    /// session's defaults). An error starting is returned as it is, but for
    /// a server that could not be selected, which nothing reached: that is
    /// waited for.
    pub(super) async fn begin(
        &mut self,
        session: &mut ClientSession,
        options: Option<&TransactionOptions>,
    ) -> Result<()> {
        if std::mem::take(&mut self.pre_started) {
            return Ok(());
        }
        loop {
            self.pause().await?;
            let started = session
                .start_transaction()
                .with_options(options.cloned())
                .await
                .map_err(start_error);
            self.starts += 1;
            self.tries += 1;
            match started {
                Ok(()) => return Ok(()),
                Err(err) if is_unreachable(&err) => self.last = Some(err),
                Err(err) => return Err(err),
            }
        }
    }

    /// The transaction was started before the runner took over (a helper
    /// finding out whether its caller's session is in one).
    pub(super) fn started_by_caller(&mut self) {
        self.pre_started = true;
        self.starts += 1;
        self.tries += 1;
    }

    /// Waits as before a new attempt after `err`, for a check that sent
    /// nothing (the helpers' `hello` on an unreachable server).
    pub(super) async fn wait_after(&mut self, err: Error) -> Result<()> {
        self.last = Some(err);
        self.starts = self.starts.max(1);
        self.pause().await
    }

    /// Steps 6 to 11, once the body returned `outcome`.
    pub(super) async fn finish<T>(
        &mut self,
        session: &mut ClientSession,
        options: Option<&TransactionOptions>,
        outcome: Result<T>,
    ) -> Result<Step<T>> {
        let value = match outcome {
            Ok(value) => value,
            Err(err) => {
                // Step 7.1. Sends `abortTransaction` only when one is in
                // progress; otherwise the driver answers at once, sending
                // nothing, and that answer changes nothing.
                let _ = session.abort_transaction().await;
                if is_standalone_refusal(&err) {
                    return Err(Error::TransactionsUnsupported { models: Vec::new() });
                }
                if err.has_label(TRANSIENT_TRANSACTION_ERROR) {
                    return self.again(err);
                }
                return Err(err);
            }
        };
        // Step 8: the body committed or aborted on purpose.
        if !in_progress(session, options).await {
            return Ok(Step::Done(value));
        }
        loop {
            let err = match session.commit_transaction().await {
                Ok(()) => return Ok(Step::Done(value)),
                Err(e) => Error::from_server(e, "commit a transaction on", "the deployment"),
            };
            if err.has_label(UNKNOWN_TRANSACTION_COMMIT_RESULT)
                && err.code() != Some(code::MAX_TIME_MS_EXPIRED)
            {
                // Step 10.1: again at once (the driver sends the retry with
                // `w: "majority"`), until the deadline.
                if self.started.elapsed() >= self.policy.deadline {
                    return Err(self.exhausted(err));
                }
                self.tries += 1;
                self.count_retry(&err);
                continue;
            }
            if err.has_label(TRANSIENT_TRANSACTION_ERROR) {
                return self.again(err);
            }
            return Err(err);
        }
    }

    /// A transient error: the whole transaction again, while time is left.
    fn again<T>(&mut self, err: Error) -> Result<Step<T>> {
        if self.started.elapsed() < self.policy.deadline {
            self.last = Some(err);
            Ok(Step::Again)
        } else {
            Err(self.exhausted(err))
        }
    }

    /// Step 2: the backoff before the next start, when there was an error.
    async fn pause(&mut self) -> Result<()> {
        let Some(last) = self.last.take() else {
            return Ok(());
        };
        let backoff = self.policy.backoff(self.starts);
        if !self.policy.allows_attempt(self.starts)
            || self.started.elapsed() + backoff >= self.policy.deadline
        {
            return Err(self.exhausted(last));
        }
        self.count_retry(&last);
        tokio::time::sleep(backoff).await;
        Ok(())
    }

    /// The error of a transaction out of time or attempts: it holds `last`
    /// and answers [`Error::has_label`] with its labels.
    fn exhausted(&self, last: Error) -> Error {
        Error::TransactionRetriesExhausted {
            attempts: self.starts,
            elapsed: self.started.elapsed(),
            last: Box::new(last),
        }
    }

    fn count_retry(&self, err: &Error) {
        if let Some(counter) = self.counter {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        #[cfg(feature = "tracing")]
        crate::exec::trace::retrying(self.tries + 1, retry_reason(err), err);
        #[cfg(not(feature = "tracing"))]
        let _ = err;
    }
}

/// Whether a transaction is still in progress on `session` (step 8). The
/// driver keeps the session's state to itself; what it does show is that
/// `startTransaction` refuses a session already in one. When it accepts,
/// the transaction it just started (nothing is sent until a command runs in
/// it) is aborted at once, again without sending anything, and the session
/// is left with no transaction in progress, as the body left it.
async fn in_progress(session: &mut ClientSession, options: Option<&TransactionOptions>) -> bool {
    match session
        .start_transaction()
        .with_options(options.cloned())
        .await
    {
        Err(e) => already_in_progress(&e),
        Ok(()) => {
            let _ = session.abort_transaction().await;
            false
        }
    }
}

/// The driver's refusal to start a transaction on a session in one.
pub(super) fn already_in_progress(e: &mongodb::error::Error) -> bool {
    matches!(e.kind.as_ref(), mongodb::error::ErrorKind::Transaction { message, .. }
        if message.contains("already in progress"))
}

/// Why a transaction could not start (the driver may select a server to
/// learn whether the deployment runs transactions).
pub(super) fn start_error(e: mongodb::error::Error) -> Error {
    match e.kind.as_ref() {
        mongodb::error::ErrorKind::Transaction { message, .. }
            if message.contains("not supported") =>
        {
            Error::TransactionsUnsupported { models: Vec::new() }
        }
        _ => Error::from_server(e, "start a transaction on", "the deployment"),
    }
}

/// The server could not be selected: nothing was sent.
pub(super) fn is_unreachable(err: &Error) -> bool {
    matches!(err, Error::Unreachable { .. })
}

/// A standalone mongod refuses the first write of a transaction with
/// `IllegalOperation`.
fn is_standalone_refusal(err: &Error) -> bool {
    err.code() == Some(code::ILLEGAL_OPERATION)
        && matches!(err, Error::Driver(e) if e.to_string().contains("replica set"))
}

/// Why a transaction runs again after `err`.
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
