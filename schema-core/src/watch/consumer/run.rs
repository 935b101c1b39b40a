//! The run loop of a [`Consumer`]: wait for the lease, open the stream
//! from the saved position, handle each change (in a transaction with the
//! position's move, or before it), renew the lease while idle, and go
//! back to waiting when the lease is lost.

use std::pin::pin;
use std::time::Instant;

use futures_util::future::{select, Either};
use futures_util::StreamExt;
use mongodb::change_stream::event::ResumeToken;
use mongodb::ClientSession;

use super::position::{Outcome, Store};
use super::{Consumer, Ran};
use crate::error::{Error, Result};
use crate::model::Document;
use crate::txn::transaction;
use crate::watch::{ChangeStream, Event};

/// How one change is handled, and the position moved past it.
trait Handle<M: Document> {
    async fn handle(
        &mut self,
        consumer: &Consumer<M>,
        store: &Store,
        prev: Option<&ResumeToken>,
        event: &Event<M>,
    ) -> Result<Outcome>;
}

/// Exactly once: the handler's writes and the position's move in one
/// transaction.
struct InTransaction<F>(F);

impl<M, F> Handle<M> for InTransaction<F>
where
    M: Document,
    F: AsyncFnMut(&mut ClientSession, &Event<M>) -> Result<()>,
{
    async fn handle(
        &mut self,
        consumer: &Consumer<M>,
        store: &Store,
        prev: Option<&ResumeToken>,
        event: &Event<M>,
    ) -> Result<Outcome> {
        let handler = &mut self.0;
        transaction(consumer.repo.database().client())
            .options(consumer.options.clone())
            .with_retry(consumer.policy.clone())
            .run(async |s| {
                // The guarded move first: it takes the position document's
                // write lock, so a stale holder's transaction conflicts or
                // finds the guard broken before the handler runs.
                if store.advance(Some(&mut *s), prev, event).await? {
                    handler(s, event).await?;
                    return Ok(Outcome::Handled);
                }
                store.after_miss(Some(s), &event.token).await
            })
            .await
    }
}

/// At least once: the handler, then the position's move.
struct ThenSave<F>(F);

impl<M, F> Handle<M> for ThenSave<F>
where
    M: Document,
    F: AsyncFnMut(&Event<M>) -> Result<()>,
{
    async fn handle(
        &mut self,
        _consumer: &Consumer<M>,
        store: &Store,
        prev: Option<&ResumeToken>,
        event: &Event<M>,
    ) -> Result<Outcome> {
        (self.0)(event).await?;
        if store.advance(None, prev, event).await? {
            return Ok(Outcome::Handled);
        }
        store.after_miss(None, &event.token).await
    }
}

/// How a spell of holding the lease ended.
enum Held {
    Stopped,
    Lost,
}

impl<M: Document> Consumer<M> {
    /// Runs the consumer, handling each change exactly once with `handler`,
    /// which gets the session of the transaction that also moves the
    /// position past the change: every database write of the handler must
    /// be sent with it (`.session(&mut *session)`), and it must have no
    /// other effect (it runs again when the transaction is retried).
    ///
    /// The run waits for the lease, resumes after the saved position, and
    /// returns when [stopped](Self::stopper) or with the first error it
    /// does not get past: the handler's (its transaction aborted: neither
    /// its writes nor the position's move are kept), a transaction's past
    /// its retry policy, or the stream's past its recovery. Run it again to
    /// go on from the saved position.
    pub async fn run<F>(&self, handler: F) -> Result<Ran>
    where
        F: AsyncFnMut(&mut ClientSession, &Event<M>) -> Result<()>,
    {
        self.run_loop(InTransaction(handler)).await
    }

    /// Runs the consumer, handling each change at least once with
    /// `handler`, which writes nothing to the database (a cache to drop, a
    /// message to send): the position is saved after the handler returns
    /// `Ok`, so a crash in between hands that change to the next run again.
    /// Otherwise as [`run`](Self::run).
    pub async fn run_at_least_once<F>(&self, handler: F) -> Result<Ran>
    where
        F: AsyncFnMut(&Event<M>) -> Result<()>,
    {
        self.run_loop(ThenSave(handler)).await
    }

    async fn run_loop(&self, mut handle: impl Handle<M>) -> Result<Ran> {
        let store = Store::new(
            self.repo.database(),
            &self.name,
            &self.holder,
            self.lease.millis(),
        );
        store.ensure().await?;
        let mut ran = Ran::default();
        while !self.stop.asked() {
            if !store.take().await? {
                self.stop.sleep(self.lease.poll_interval()).await;
                continue;
            }
            ran.leases_taken += 1;
            match self.hold(&store, &mut handle, &mut ran).await {
                Ok(Held::Stopped) => break,
                Ok(Held::Lost) => ran.leases_lost += 1,
                Err(e) => {
                    let _ = store.release().await;
                    return Err(e);
                }
            }
        }
        store.release().await?;
        Ok(ran)
    }

    /// Handles changes while this instance holds the lease.
    async fn hold(
        &self,
        store: &Store,
        handle: &mut impl Handle<M>,
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
                Ok(Either::Left((Some(event), _))) => event?,
                Ok(Either::Left((None, _))) => {
                    return Err(Error::Model(format!(
                        "the change stream of consumer {:?} ended",
                        self.name
                    )))
                }
            };
            let at = Instant::now();
            match handle.handle(self, store, prev.as_ref(), &event).await? {
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
            Some(Err(e)) => {
                return Err(Error::Model(format!(
                    "the filter of consumer {:?}: {e}",
                    self.name
                )))
            }
            None => {}
        }
        if self.full_on_update {
            watch = watch.full_document_on_update();
        }
        if let Some(token) = token {
            watch = watch.resume_after(token);
        }
        watch.await
    }
}
