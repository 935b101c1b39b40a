//! What a [`Consumer`](super::Consumer) calls with each change: a
//! [`Handler`] (exactly once, with the session of the transaction that
//! also moves the position) or a [`Listener`] (at least once, no database
//! writes).
//!
//! Both are closures that get a context of the caller's beside the change
//! and return a boxed `Send` future, as the body of
//! [`Transaction::run_with`](crate::txn::Transaction::run_with) does: the
//! future of an `async` closure cannot be required to be `Send` on stable
//! Rust, and a boxed one is, so a run can be `tokio::spawn`ed; and a
//! future that borrows through the context (`&counts`) may outlive the
//! closure's call, which a closure's own captures may not.

use futures_util::future::BoxFuture;
use mongodb::ClientSession;

use crate::error::Result;
use crate::model::Document;
use crate::watch::Event;

/// What [`Consumer::run`](super::Consumer::run) calls with each change of
/// model `M`, exactly once: a closure given the session of the transaction
/// that also moves the consumer's position, the context `C` and the
/// change, returning a boxed future (`Box::pin(async move { .. })`). Every
/// database write it makes goes through the session
/// (`.session(&mut *session)`); it has no other effect (it runs again when
/// the transaction is retried).
pub trait Handler<M: Document, C>:
    for<'a> FnMut(&'a mut ClientSession, &'a mut C, &'a Event<M>) -> BoxFuture<'a, Result<()>> + Send
{
}

impl<M: Document, C, F> Handler<M, C> for F where
    F: for<'a> FnMut(&'a mut ClientSession, &'a mut C, &'a Event<M>) -> BoxFuture<'a, Result<()>>
        + Send
{
}

/// What [`Consumer::run_at_least_once`](super::Consumer::run_at_least_once)
/// calls with each change of model `M`: a closure given the context `C`
/// and the change, returning a boxed future, that writes nothing to the
/// database (a cache to drop, a message to send) and may see a change
/// twice after a crash.
pub trait Listener<M: Document, C>:
    for<'a> FnMut(&'a mut C, &'a Event<M>) -> BoxFuture<'a, Result<()>> + Send
{
}

impl<M: Document, C, F> Listener<M, C> for F where
    F: for<'a> FnMut(&'a mut C, &'a Event<M>) -> BoxFuture<'a, Result<()>> + Send
{
}
