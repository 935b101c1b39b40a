//! [`transaction`]: one builder for a transaction of the caller's, on a new
//! session or the caller's own, with options and a retry policy, run with an
//! async closure ([`Transaction::run`]) or a context and a boxed body
//! ([`Transaction::run_with`]).

use std::future::Future;

use futures_util::future::BoxFuture;
use mongodb::options::TransactionOptions;
use mongodb::{Client, ClientSession};

use super::policy::RetryPolicy;
use super::runner::{Attempts, Step};
use crate::error::Result;

/// The loop of every run: begin (steps 2-4), run the body `$call` (step 5),
/// finish (steps 6-11), until the transaction is done. A macro, not a
/// function generic over the body, because an async closure's future
/// cannot be named, and a boxed body's future must stay `Send`.
macro_rules! attempt_loop {
    ($session:ident, $attempts:ident, $options:expr, $call:expr) => {{
        let options = $options;
        loop {
            $attempts.begin($session, options).await?;
            let outcome = $call.await;
            if let Step::Done(value) = $attempts.finish($session, options, outcome).await? {
                return Ok(value);
            }
        }
    }};
}

/// A transaction to run: made by [`transaction`], set up with
/// [`session`](Self::session), [`options`](Self::options) and
/// [`with_retry`](Self::with_retry), then run with [`run`](Self::run) or
/// [`run_with`](Self::run_with). See the module docs.
#[must_use = "a transaction does nothing until it is run"]
#[derive(Debug)]
pub struct Transaction<'a> {
    on: On<'a>,
    policy: RetryPolicy,
    options: Option<TransactionOptions>,
}

#[derive(Debug)]
enum On<'a> {
    Client(&'a Client),
    Session(&'a mut ClientSession),
}

/// A transaction on a new session of `client`, with the session's default
/// options and [`RetryPolicy::default`] until told otherwise.
pub fn transaction(client: &Client) -> Transaction<'_> {
    Transaction {
        on: On::Client(client),
        policy: RetryPolicy::default(),
        options: None,
    }
}

/// The body of [`Transaction::run_with`]: called once per attempt with the
/// session and the context, returning a boxed future (which is `Send`
/// whatever the context borrows).
pub trait TxnBody<C, T>:
    for<'s> FnMut(&'s mut ClientSession, &'s mut C) -> BoxFuture<'s, Result<T>>
{
}
impl<C, T, F> TxnBody<C, T> for F where
    F: for<'s> FnMut(&'s mut ClientSession, &'s mut C) -> BoxFuture<'s, Result<T>>
{
}

impl<'a> Transaction<'a> {
    /// Runs on the caller's `session` instead of a new one (its default
    /// transaction options apply). The session must have no transaction in
    /// progress: starting one is then an error, returned as it is.
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.on = On::Session(session);
        self
    }

    /// Starts the transaction with `options`, which win over the session's
    /// defaults field by field (read concern, write concern, read preference,
    /// `maxCommitTimeMS`), as the driver's `startTransaction` merges them.
    /// Without it, the session's defaults (the client's) apply, as with the
    /// driver's `withTransaction`; [`helper_options`](super::helper_options)
    /// are the framework's durable ones.
    pub fn options(mut self, options: TransactionOptions) -> Self {
        self.options = Some(options);
        self
    }

    /// Retries within `policy` instead of [`RetryPolicy::default`].
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Runs `body` in the transaction, retried as the module docs say, and
    /// returns its value. The body gets the session: give it to every
    /// command of the transaction (`.session(&mut *s)`).
    ///
    /// Its future is `Send` (it can be `tokio::spawn`ed) when the closure
    /// owns what it uses (`async move |s| ..` over clones); a body that
    /// borrows runs in a spawned task through [`run_with`](Self::run_with),
    /// since an `async` closure's future cannot be required to be `Send`
    /// for every borrow on stable Rust.
    pub async fn run<T, F>(self, mut body: F) -> Result<T>
    where
        F: AsyncFnMut(&mut ClientSession) -> Result<T>,
    {
        in_transaction_span(async move {
            let (mut held, policy, options) = self.start().await?;
            let session = held.session();
            let mut attempts = Attempts::new(&policy, None);
            attempt_loop!(session, attempts, options.as_ref(), body(session))
        })
        .await
    }

    /// [`run`](Self::run) with a body that takes a `context` beside the
    /// session and returns a boxed future, as the driver's `and_run` does: a
    /// body that borrows (through the context) and still runs in a
    /// `tokio::spawn`ed task.
    pub async fn run_with<C, T, F>(self, context: C, body: F) -> Result<T>
    where
        F: TxnBody<C, T>,
    {
        in_transaction_span(async move {
            let (mut held, policy, options) = self.start().await?;
            let attempts = Attempts::new(&policy, None);
            run_context(held.session(), attempts, options.as_ref(), context, body).await
        })
        .await
    }

    /// The session to run on (a new one of the client, or the caller's),
    /// the policy and the options.
    async fn start(self) -> Result<(Held<'a>, RetryPolicy, Option<TransactionOptions>)> {
        let held = match self.on {
            On::Session(session) => Held::Borrowed(session),
            On::Client(client) => Held::Owned(Box::new(super::start_session(client).await?)),
        };
        Ok((held, self.policy, self.options))
    }
}

/// A session of the caller's, or one started for the run.
enum Held<'a> {
    Borrowed(&'a mut ClientSession),
    Owned(Box<ClientSession>),
}

impl Held<'_> {
    fn session(&mut self) -> &mut ClientSession {
        match self {
            Held::Borrowed(session) => session,
            Held::Owned(session) => session,
        }
    }
}

/// The loop of a body with a context: begin, run, finish, until done.
pub(super) async fn run_context<C, T, F>(
    session: &mut ClientSession,
    mut attempts: Attempts<'_>,
    options: Option<&TransactionOptions>,
    mut context: C,
    mut body: F,
) -> Result<T>
where
    F: TxnBody<C, T>,
{
    attempt_loop!(session, attempts, options, body(session, &mut context))
}

/// A transaction the caller runs itself, in its own span with the
/// `tracing` feature (see the `trace` module). Without the feature, `run`
/// itself.
fn in_transaction_span<T>(run: impl Future<Output = Result<T>>) -> impl Future<Output = Result<T>> {
    #[cfg(feature = "tracing")]
    let run = crate::exec::trace::in_span(crate::exec::trace::transaction_span(), Box::pin(run));
    run
}
