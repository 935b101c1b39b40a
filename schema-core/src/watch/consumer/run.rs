//! The run loop of a [`Consumer`]: wait for the lease, open the stream
//! from the saved position, handle each change (in a transaction with the
//! position's move, or before it), renew the lease while idle, and go
//! back to waiting when the lease is lost.

use std::pin::pin;
use std::time::Instant;

use futures_util::future::{select, BoxFuture, Either};
use futures_util::StreamExt;
use mongodb::change_stream::event::ResumeToken;
use mongodb::ClientSession;

use super::handler::{Handler, Listener};
use super::position::{Outcome, Store};
use super::{Consumer, Ran};
use crate::error::{Error, Result};
use crate::model::Document;
use crate::txn::transaction;
use crate::watch::{ChangeStream, Event};

/// How one change is handled, and the position moved past it. Every
/// future is boxed and `Send`, so that a run can be `tokio::spawn`ed.
trait Handle<M: Document>: Send {
    fn handle<'a>(
        &'a mut self,
        consumer: &'a Consumer<M>,
        store: &'a Store,
        session: &'a mut ClientSession,
        prev: Option<&'a ResumeToken>,
        event: &'a Event<M>,
    ) -> BoxFuture<'a, Result<Outcome>>;
}

/// Exactly once: the handler's writes and the position's move in one
/// transaction, on the session recorded with the lease.
struct InTransaction<C, H> {
    context: C,
    handler: H,
}

impl<M: Document, C: Send, H: Handler<M, C>> Handle<M> for InTransaction<C, H> {
    fn handle<'a>(
        &'a mut self,
        consumer: &'a Consumer<M>,
        store: &'a Store,
        session: &'a mut ClientSession,
        prev: Option<&'a ResumeToken>,
        event: &'a Event<M>,
    ) -> BoxFuture<'a, Result<Outcome>> {
        let both = (&mut self.context, &mut self.handler);
        Box::pin(
            transaction(consumer.repo.database().client())
                .session(session)
                .options(consumer.options.clone())
                .with_retry(consumer.policy.clone())
                .run_with(both, move |s, (context, handler)| {
                    Box::pin(async move {
                        // The guarded move first: it takes the position
                        // document's write lock, so a stale holder's
                        // transaction conflicts or finds the guard broken
                        // before the handler runs.
                        if store.advance(Some(&mut *s), prev, event).await? {
                            handler(s, context, event).await?;
                            return Ok(Outcome::Handled);
                        }
                        store.after_miss(Some(s), &event.token).await
                    })
                }),
        )
    }
}

/// What runs at least once before the position's move, given the session
/// recorded with the lease: a caller's [`Listener`] (which ignores it), or
/// the framework's own work (a copy follower's pages, whose transactions a
/// successor can then end when their holder died).
pub(crate) trait SessionListener<M: Document>: Send {
    fn handle<'a>(
        &'a mut self,
        session: &'a mut ClientSession,
        event: &'a Event<M>,
    ) -> BoxFuture<'a, Result<()>>;
}

/// A caller's listener and its context.
struct Plain<C, L> {
    context: C,
    listener: L,
}

impl<M: Document, C: Send, L: Listener<M, C>> SessionListener<M> for Plain<C, L> {
    fn handle<'a>(
        &'a mut self,
        _session: &'a mut ClientSession,
        event: &'a Event<M>,
    ) -> BoxFuture<'a, Result<()>> {
        (self.listener)(&mut self.context, event)
    }
}

/// At least once: the listener, then the position's move.
struct ThenSave<L>(L);

impl<M: Document, L: SessionListener<M>> Handle<M> for ThenSave<L> {
    fn handle<'a>(
        &'a mut self,
        _consumer: &'a Consumer<M>,
        store: &'a Store,
        session: &'a mut ClientSession,
        prev: Option<&'a ResumeToken>,
        event: &'a Event<M>,
    ) -> BoxFuture<'a, Result<Outcome>> {
        Box::pin(async move {
            self.0.handle(session, event).await?;
            if store.advance(None, prev, event).await? {
                return Ok(Outcome::Handled);
            }
            store.after_miss(None, &event.token).await
        })
    }
}

/// How a spell of holding the lease ended.
enum Held {
    Stopped,
    Lost,
}

impl<M: Document> Consumer<M> {
    /// Runs the consumer, handling each change exactly once with `handler`
    /// (a [`Handler`]), which gets the session of the transaction that
    /// also moves the position past the change, then `context` (mutably:
    /// what the handler writes to, borrowed or owned), then the change, and
    /// returns a boxed future (`Box::pin(async move { .. })`). Every
    /// database write of the handler must be sent with the session
    /// (`.session(&mut *session)`), and it must have no other effect (it
    /// runs again when the transaction is retried).
    ///
    /// The run waits for the lease, resumes after the saved position, and
    /// returns when [stopped](Self::stopper) or with the first error it
    /// does not get past, as [`Error::Consumer`] naming this consumer: the
    /// handler's (its transaction aborted: neither its writes nor the
    /// position's move are kept), a transaction's past its retry policy, or
    /// the stream's past its [recovery](Self::recovery) and
    /// [`on_lost`](Self::on_lost) policy. Run it again to go on from the
    /// saved position. Its future is `Send` when the context is, so it can
    /// be `tokio::spawn`ed.
    pub async fn run<C, H>(&self, context: C, handler: H) -> Result<Ran>
    where
        C: Send,
        H: Handler<M, C>,
    {
        self.run_loop(InTransaction { context, handler }).await
    }

    /// Runs the consumer, handling each change at least once with
    /// `listener` (a [`Listener`]), which gets `context` and the change
    /// and writes nothing to the database (a cache to drop, a message to
    /// send): the position is saved after it returns `Ok`, so a crash in
    /// between hands that change to the next run again. Otherwise as
    /// [`run`](Self::run).
    pub async fn run_at_least_once<C, L>(&self, context: C, listener: L) -> Result<Ran>
    where
        C: Send,
        L: Listener<M, C>,
    {
        self.run_loop(ThenSave(Plain { context, listener })).await
    }

    /// As [`run_at_least_once`](Self::run_at_least_once), the listener
    /// given the session recorded with the lease for its transactions.
    pub(crate) async fn run_with_session<L: SessionListener<M>>(&self, listener: L) -> Result<Ran> {
        self.run_loop(ThenSave(listener)).await
    }

    async fn run_loop(&self, handle: impl Handle<M>) -> Result<Ran> {
        self.run_named(handle).await.map_err(|e| Error::Consumer {
            name: self.name.clone(),
            source: Box::new(e),
        })
    }

    async fn run_named(&self, mut handle: impl Handle<M>) -> Result<Ran> {
        let client = self.repo.database().client();
        let mut session = crate::txn::start_session(client).await?;
        let store = Store::new(
            self.repo.database(),
            &self.name,
            &self.holder,
            self.lease.millis(),
            session.id().clone(),
        );
        store.ensure().await?;
        let mut ran = Ran::default();
        while !self.stop.asked() {
            if !store.take().await? {
                self.stop.sleep(self.lease.poll_interval()).await;
                continue;
            }
            ran.leases_taken += 1;
            match self.hold(&store, &mut handle, &mut session, &mut ran).await {
                Ok(Held::Stopped) => break,
                Ok(Held::Lost) => ran.leases_lost += 1,
                Err(e) => {
                    let _ = store.release().await;
                    return Err(e);
                }
            }
        }
        store.release().await?;
        ran.sessions_ended = store.ended.load(std::sync::atomic::Ordering::Relaxed);
        Ok(ran)
    }

    /// Handles changes while this instance holds the lease.
    async fn hold(
        &self,
        store: &Store,
        handle: &mut impl Handle<M>,
        session: &mut ClientSession,
        ran: &mut Ran,
    ) -> Result<Held> {
        let mut renewed = Instant::now();
        let mut prev = store.load().await?.token;
        let mut stream = self.open(prev.clone()).await?;
        if prev.is_none() {
            let start = stream.resume_token().ok_or_else(|| {
                Error::Model(format!(
                    "the change stream of consumer {:?} gave no starting point",
                    self.name
                ))
            })?;
            if !store.save_start(&start).await? {
                return Ok(Held::Lost);
            }
            prev = Some(start);
        }
        let renew = self.lease.renew_interval();
        loop {
            if renewed.elapsed() >= renew {
                let at = Instant::now();
                if !store.renew().await? {
                    return Ok(Held::Lost);
                }
                renewed = at;
            }
            let notified = self.stop.notify.notified();
            if self.stop.asked() {
                return Ok(Held::Stopped);
            }
            let wait = renew.saturating_sub(renewed.elapsed());
            let (next, notified) = (pin!(stream.next()), pin!(notified));
            let event = match tokio::time::timeout(wait, select(next, notified)).await {
                Err(_) | Ok(Either::Right(_)) => continue,
                Ok(Either::Left((Some(Ok(event)), _))) => event,
                Ok(Either::Left((Some(Err(e)), _))) if self.skip_undecodable && undecodable(&e) => {
                    ran.skipped += 1;
                    continue;
                }
                Ok(Either::Left((Some(Err(e)), _))) => return Err(e),
                Ok(Either::Left((None, _))) => {
                    return Err(Error::Model("its change stream ended".to_owned()))
                }
            };
            let at = Instant::now();
            match handle
                .handle(self, store, session, prev.as_ref(), &event)
                .await?
            {
                Outcome::Handled => {
                    ran.handled += 1;
                    renewed = at;
                }
                Outcome::AlreadyHandled => ran.already_handled += 1,
                Outcome::LeaseLost => return Ok(Held::Lost),
            }
            prev = Some(event.token);
        }
    }

    /// The stream of the changes after `token` (from now without one).
    async fn open(&self, token: Option<ResumeToken>) -> Result<ChangeStream<M>> {
        let mut watch = self.repo.watch();
        match &self.filter {
            Some(Ok(filter)) => watch = watch.filter(filter.clone()),
            Some(Err(e)) => return Err(Error::Model(format!("its filter: {e}"))),
            None => {}
        }
        if self.full_on_update {
            watch = watch.full_document_on_update();
        }
        if self.skip_undecodable {
            watch = watch.skip_undecodable();
        }
        if let Some(token) = token {
            watch = watch.resume_after(token);
        }
        watch.on_lost(self.on_lost).recovery(self.recovery).await
    }
}

/// Whether `e` is a change the model could not read.
fn undecodable(e: &Error) -> bool {
    matches!(e, Error::Change(c) if matches!(**c, crate::error::ChangeError::Undecodable { .. }))
}
