//! Typed change streams: [`Repo::watch`](crate::Repo::watch) yields the
//! changes of a model's collection as [`Event`]s, each a [`Change`] of the
//! model with its resume token.
//!
//! - An insert or a replace carries the document decoded as the model at
//!   its current version: a document written at an earlier version is
//!   upgraded as reads upgrade it. An update names the fields it set by
//!   their stored paths, those it removed, and the whole document when
//!   asked ([`Watch::full_document_on_update`]); a delete, the `_id`. An
//!   update or a delete carries the document as it was before, when the
//!   model keeps pre-images (`#[document(pre_images)]`) and the stream
//!   asks ([`Watch::before_change`]).
//! - A change the model cannot read is an
//!   [`Error::Change`](crate::Error::Change) naming the `_id` (never a
//!   stored value); the stream stops there unless told to go on
//!   ([`Watch::skip_undecodable`]).
//! - A typed [`Filter`](crate::Filter) picks the changes to watch
//!   ([`Watch::filter`]).
//! - Recovery: the driver resumes once after a resumable error; past that
//!   (a server restart, a network error that outlives the driver's retry)
//!   the stream opens itself again from the last token it delivered, with a
//!   bounded backoff ([`Recovery`]). When that token is older than the
//!   server's history (code 286) or the collection was dropped or renamed,
//!   its [`OnLost`] policy decides: stop with an error, or go on from now
//!   and report the [`Gap`]. A resume point that failed so is never tried
//!   again.

mod builder;
mod consumer;
mod decode;
mod fields;
mod filter;
mod follow;
mod stream;

pub use builder::Watch;
pub use consumer::{Consumer, Handler, Lease, Listener, Ran, Stopper, CONSUMERS};
pub use follow::{CopyFollower, FollowedBatch, DEFAULT_FOLLOW_BATCH};
pub use stream::ChangeStream;

use std::time::Duration;

use bson::{DateTime, Document as BsonDocument, Timestamp};
use mongodb::change_stream::event::ResumeToken;

use crate::error::LostBecause;
use crate::model::Document;

/// One change of a watched collection, with where to resume after it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Event<M: Document> {
    /// What changed.
    pub change: Change<M>,
    /// The token to resume after this change (`Watch::resume_after`): save
    /// it once the change is handled.
    pub token: ResumeToken,
    /// The server's cluster time of the change (none for a [`Change::Gap`]).
    pub cluster_time: Option<Timestamp>,
    /// The server's wall time of the change (none for a [`Change::Gap`]).
    pub wall_time: Option<DateTime>,
}

/// What a change did, typed by the model `M`.
#[derive(Debug)]
#[non_exhaustive]
pub enum Change<M: Document> {
    /// A document was inserted: the document, as the model.
    Insert(M),
    /// A document was replaced: the new document, as the model.
    Replace(M),
    /// A document was updated.
    Update {
        /// Its `_id`.
        id: M::Id,
        /// The fields the update set, by stored path (`status`,
        /// `address.city`, `items.3`), with their new values.
        changed: BsonDocument,
        /// The stored paths of the fields it removed.
        removed: Vec<String>,
        /// The whole document as it is now (looked up after the change,
        /// so possibly with later changes too), when the stream was asked
        /// for it ([`Watch::full_document_on_update`]) and the document
        /// still exists.
        full: Option<M>,
        /// The whole document as it was just before the update, when the
        /// stream was asked for it ([`Watch::before_change`]) and the
        /// collection keeps pre-images (`#[document(pre_images)]`).
        before: Option<M>,
    },
    /// A document was deleted: its `_id`.
    Delete {
        /// Its `_id`.
        id: M::Id,
        /// The whole document as it was just before the delete, as for an
        /// update.
        before: Option<M>,
    },
    /// The collection was dropped ([`Change::Invalidate`] follows).
    Dropped,
    /// The collection was renamed to `to` (`database.collection`);
    /// [`Change::Invalidate`] follows.
    Renamed {
        /// The new namespace.
        to: String,
    },
    /// The server ended the stream (the collection was dropped or renamed).
    /// With [`OnLost::RestartFromNow`] the stream goes on after it, missing
    /// nothing; with [`OnLost::Stop`] it yields
    /// [`ChangeError::Lost`](crate::ChangeError::Lost) next, and ends.
    Invalidate,
    /// The stream could not resume where it was and went on from now, as
    /// [`OnLost::RestartFromNow`] asks: the changes in the gap were not
    /// delivered.
    Gap(Gap),
    /// Another operation the server reported (a `dropDatabase`, say).
    Other {
        /// Its `operationType`.
        operation: String,
    },
}

/// The changes a stream did not deliver: those after `from` and before
/// `to` ([`Change::Gap`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Gap {
    /// Why the stream could not resume.
    pub because: LostBecause,
    /// The server's wall time of the last change delivered before the gap
    /// (none when the stream had delivered nothing).
    pub from: Option<DateTime>,
    /// When the stream opened again (this machine's clock): every change
    /// after it is delivered.
    pub to: DateTime,
}

/// What a stream does when its resume point is gone: older than the
/// server's history (code 286), or ended by the collection's drop or
/// rename ([`LostBecause`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnLost {
    /// Stop with [`ChangeError::Lost`](crate::ChangeError::Lost), naming
    /// why and the last change delivered (the default).
    #[default]
    Stop,
    /// Go on: after an invalidate, from just after it (nothing is missed);
    /// after a lost history, from now, first yielding a [`Change::Gap`]
    /// with the time range not delivered.
    RestartFromNow,
}

/// How a stream opens itself again after an error the driver's own resume
/// did not get past (a server restart, a network error): up to
/// [`attempts`](Recovery::attempts) times in a row, waiting between them
/// from the first delay, doubling up to the longest. A change delivered
/// resets the count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recovery {
    attempts: u32,
    first_delay: Duration,
    max_delay: Duration,
}

impl Default for Recovery {
    /// 10 attempts, waiting 100 ms, then doubling up to 5 s between them
    /// (about 26 s in all, plus the time each attempt takes to fail).
    fn default() -> Self {
        Recovery {
            attempts: 10,
            first_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
        }
    }
}

impl Recovery {
    /// Opens again at most `attempts` times in a row (0: never).
    pub fn attempts(mut self, attempts: u32) -> Self {
        self.attempts = attempts;
        self
    }

    /// Waits `first` before the first attempt, doubling up to `max`.
    pub fn delays(mut self, first: Duration, max: Duration) -> Self {
        self.first_delay = first;
        self.max_delay = max.max(first);
        self
    }

    /// The most attempts in a row.
    pub fn max_attempts(&self) -> u32 {
        self.attempts
    }

    /// The wait before attempt `n` (1 for the first).
    pub(crate) fn delay(&self, n: u32) -> Duration {
        let factor = 2u32.saturating_pow(n.saturating_sub(1).min(20));
        self.first_delay.saturating_mul(factor).min(self.max_delay)
    }
}
