//! [`ChangeStream`]: the driver's change stream of raw events, each read as
//! a typed [`Event`], opened again from the last token delivered when the
//! driver's own resume did not get past an error.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bson::{DateTime, Document as BsonDocument, RawDocumentBuf};
use futures_util::stream::{BoxStream, Stream, StreamExt};
use mongodb::change_stream::event::ResumeToken;
use mongodb::options::{FullDocumentBeforeChangeType, FullDocumentType};
use mongodb::Collection;

use super::{Change, Event, Gap, OnLost, Recovery};
use crate::error::{ChangeError, DriverErrorExt, Error, LostBecause, Result};
use crate::model::Document;

/// The driver's stream of raw events.
type Raw = mongodb::change_stream::ChangeStream<RawDocumentBuf>;

/// Server error codes after which resuming from the same point never
/// succeeds: `ChangeStreamHistoryLost`, and `ChangeStreamFatalError` (the
/// resume point's event no longer in the history).
const LOST: [i32; 2] = [286, 280];

/// Server error codes the change-streams specification lists as
/// resumable for servers that send no `ResumableChangeStreamError` label
/// (host unreachable or not found, network timeout, shutdown, stepdown,
/// not primary, cursor not found, ...).
const RESUMABLE: [i32; 17] = [
    6, 7, 43, 63, 89, 91, 133, 150, 189, 234, 262, 9001, 10107, 11600, 11602, 13388, 13435,
];

/// What a stream is opened with.
pub(super) struct Config {
    pub(super) coll: Collection<RawDocumentBuf>,
    pub(super) pipeline: Vec<BsonDocument>,
    pub(super) full_on_update: bool,
    /// `fullDocumentBeforeChange`, when asked.
    pub(super) before: Option<FullDocumentBeforeChangeType>,
    pub(super) skip_undecodable: bool,
    pub(super) on_lost: OnLost,
    pub(super) recovery: Recovery,
    pub(super) max_await: Option<Duration>,
    /// The repository's encryption handle: each change's documents are
    /// decrypted as a read decrypts them.
    pub(super) keys: crate::crypt::Keys,
}

/// Where the next opening starts.
#[derive(Clone)]
pub(super) enum Start {
    Now,
    /// `resumeAfter` a change's token.
    After(ResumeToken),
    /// `startAfter` an invalidate's token.
    AfterInvalidate(ResumeToken),
}

/// What the stream and its handle share.
#[derive(Default)]
struct Shared {
    token: Mutex<Option<ResumeToken>>,
    opens: AtomicU64,
}

/// A model's changes as a [`Stream`] of `Result<Event<M>>` (see
/// [`Repo::watch`](crate::Repo::watch)). It ends after an error it does
/// not go on from (an undecodable change without
/// [`skip_undecodable`](super::Watch::skip_undecodable), a lost resume
/// point under [`OnLost::Stop`], recovery given up).
#[must_use = "a stream does nothing until it is polled"]
pub struct ChangeStream<M: Document> {
    inner: BoxStream<'static, Result<Event<M>>>,
    shared: Arc<Shared>,
}

impl<M: Document> ChangeStream<M> {
    /// Opens the stream at `start` (with its recovery and policy).
    pub(super) async fn open(config: Config, start: Start) -> Result<Self> {
        let shared = Arc::new(Shared::default());
        let mut state = State::<M> {
            config,
            raw: None,
            start,
            last_wall: None,
            lost: None,
            failures: 0,
            pending: VecDeque::new(),
            done: false,
            shared: shared.clone(),
        };
        state.reopen().await?;
        let inner = futures_util::stream::unfold(state, |mut state| async move {
            let item = state.next().await?;
            Some((item, state))
        });
        Ok(ChangeStream {
            inner: inner.boxed(),
            shared,
        })
    }

    /// The token to resume after the last change it yielded (an
    /// undecodable one it went on from included), or where it opened when
    /// it yielded none; `None` when the server gave none yet.
    pub fn resume_token(&self) -> Option<ResumeToken> {
        self.shared
            .token
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// How many times it opened a change stream on the server: 1, plus one
    /// per recovery attempt and per restart after a lost resume point.
    pub fn opens(&self) -> u64 {
        self.shared.opens.load(Ordering::Relaxed)
    }
}

impl<M: Document> Stream for ChangeStream<M> {
    type Item = Result<Event<M>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl<M: Document> std::fmt::Debug for ChangeStream<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ChangeStream<{}>({})", M::NAME, M::COLLECTION)
    }
}

/// The stream's state between two items.
struct State<M: Document> {
    config: Config,
    raw: Option<Raw>,
    start: Start,
    /// The wall time of the last change delivered.
    last_wall: Option<DateTime>,
    /// A lost resume point to report as a gap once open again.
    lost: Option<(LostBecause, Option<DateTime>)>,
    /// Failed openings in a row.
    failures: u32,
    pending: VecDeque<Result<Event<M>>>,
    done: bool,
    shared: Arc<Shared>,
}

impl<M: Document> State<M> {
    /// The next item, or `None` once it has ended.
    async fn next(&mut self) -> Option<Result<Event<M>>> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            if self.raw.is_none() {
                if let Err(e) = self.reopen().await {
                    self.done = true;
                    return Some(Err(e));
                }
                continue;
            }
            let raw = self.raw.as_mut()?;
            match raw.next().await {
                Some(Ok(event)) => {
                    self.failures = 0;
                    let token = raw.resume_token();
                    let (event, sealed) = self.config.keys.unseal_change::<M>(event).await;
                    if let Some(item) = self.delivered(&event, token, sealed) {
                        return Some(item);
                    }
                }
                Some(Err(e)) => {
                    let last = raw.resume_token();
                    self.resume_from_last(last);
                    self.raw = None;
                    if let Err(e) = self.failed(e).await {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
                // A cursor the server closed without an invalidate: open
                // it again from the last token.
                None => {
                    let last = raw.resume_token();
                    self.resume_from_last(last);
                    self.raw = None;
                }
            }
        }
    }

    /// Where to open again after the driver's stream ends or fails: after
    /// `token`, the driver's latest (the last change's, or the batch's
    /// `postBatchResumeToken` past it, as the change-streams specification
    /// caches it), so that a stream opened from now that fails before its
    /// first change resumes from where it opened, not from a later now.
    fn resume_from_last(&mut self, token: Option<ResumeToken>) {
        if let Some(token) = token {
            if !matches!(self.start, Start::AfterInvalidate(_)) {
                self.start = Start::After(token);
            }
        }
    }

    /// The item for the raw event `event` whose resume token is `token`
    /// (`unsealed`: why its documents could not be decrypted, if so).
    fn delivered(
        &mut self,
        event: &RawDocumentBuf,
        token: Option<ResumeToken>,
        unsealed: Option<Error>,
    ) -> Option<Result<Event<M>>> {
        let token = token?;
        self.start = Start::After(token.clone());
        *self.shared.token.lock().unwrap_or_else(|e| e.into_inner()) = Some(token.clone());
        let wall_time = event.get_datetime("wallTime").ok();
        if wall_time.is_some() {
            self.last_wall = wall_time;
        }
        let decoded = match unsealed {
            Some(e) => Err(e),
            None => super::decode::change::<M>(event),
        };
        let change = match decoded {
            Ok(change) => change,
            Err(e) => {
                self.done = !self.config.skip_undecodable;
                return Some(Err(e));
            }
        };
        if matches!(change, Change::Invalidate) {
            self.raw = None;
            match self.config.on_lost {
                OnLost::Stop => {
                    self.pending
                        .push_back(Err(self.lost_error(LostBecause::Invalidated)));
                    self.done = true;
                }
                OnLost::RestartFromNow => self.start = Start::AfterInvalidate(token.clone()),
            }
        }
        Some(Ok(Event {
            change,
            token,
            cluster_time: event.get_timestamp("clusterTime").ok(),
            wall_time,
        }))
    }

    /// Opens the driver's stream at `start`, through the failures its
    /// recovery and policy allow; a gap to report is queued once open.
    async fn reopen(&mut self) -> Result<()> {
        loop {
            self.shared.opens.fetch_add(1, Ordering::Relaxed);
            match open_raw(&self.config, self.start.clone()).await {
                Ok(raw) => {
                    let token = raw.resume_token();
                    self.resume_from_last(token.clone());
                    self.raw = Some(raw);
                    if let Some(token) = &token {
                        let mut shared =
                            self.shared.token.lock().unwrap_or_else(|e| e.into_inner());
                        shared.get_or_insert_with(|| token.clone());
                    }
                    if let Some((because, from)) = self.lost.take() {
                        let token = token.or_else(|| self.shared.token.lock().ok()?.clone());
                        if let Some(token) = token {
                            self.pending.push_back(Ok(Event {
                                change: Change::Gap(Gap {
                                    because,
                                    from,
                                    to: DateTime::now(),
                                }),
                                token,
                                cluster_time: None,
                                wall_time: None,
                            }));
                        }
                    }
                    return Ok(());
                }
                Err(e) => self.failed(e).await?,
            }
        }
    }

    /// After the error `e` of the stream or of an opening: `Ok` to open
    /// again (after a wait, or from now after a lost history), the error
    /// to end with otherwise.
    async fn failed(&mut self, e: mongodb::error::Error) -> Result<()> {
        let collection = M::COLLECTION;
        let code = e.code();
        if code.is_some_and(|c| LOST.contains(&c)) {
            return match self.config.on_lost {
                OnLost::Stop => Err(self.lost_error(LostBecause::HistoryLost)),
                OnLost::RestartFromNow => {
                    self.lost = Some((LostBecause::HistoryLost, self.last_wall));
                    self.start = Start::Now;
                    Ok(())
                }
            };
        }
        let resumable = match code {
            None => true,
            Some(c) => RESUMABLE.contains(&c) || e.contains_label("ResumableChangeStreamError"),
        };
        if !resumable {
            return Err(Error::from_server(e, "watch", collection));
        }
        self.failures += 1;
        if self.failures > self.config.recovery.max_attempts() {
            return Err(Error::Change(Box::new(ChangeError::GaveUp {
                collection,
                attempts: self.failures - 1,
                last: Box::new(Error::from_server(e, "watch", collection)),
            })));
        }
        tokio::time::sleep(self.config.recovery.delay(self.failures)).await;
        Ok(())
    }

    fn lost_error(&self, because: LostBecause) -> Error {
        Error::Change(Box::new(ChangeError::Lost {
            collection: M::COLLECTION,
            because,
            last: self.last_wall,
        }))
    }
}

/// The driver's change stream at `start`.
async fn open_raw(config: &Config, start: Start) -> mongodb::error::Result<Raw> {
    let mut watch = config.coll.watch().pipeline(config.pipeline.clone());
    if let Some(wait) = config.max_await {
        watch = watch.max_await_time(wait);
    }
    if config.full_on_update {
        watch = watch.full_document(FullDocumentType::UpdateLookup);
    }
    if let Some(before) = &config.before {
        watch = watch.full_document_before_change(before.clone());
    }
    watch = match start {
        Start::Now => watch,
        Start::After(token) => watch.resume_after(token),
        Start::AfterInvalidate(token) => watch.start_after(token),
    };
    Ok(watch.await?.with_type::<RawDocumentBuf>())
}
