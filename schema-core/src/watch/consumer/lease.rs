//! [`Lease`]: which instance of a consumer handles its changes, held in
//! its position document (`holder`, `leaseUntil` in the server's clock),
//! taken with a conditional update, renewed by its holder, released on
//! stop.

use std::time::Duration;

use std::sync::atomic::Ordering;

use bson::{doc, Bson, Document as BsonDocument};

use super::position::Store;
use crate::error::{DriverErrorExt, Error, Result};

/// How the instances of one consumer share its work: the one holding the
/// lease handles the changes, the others wait.
///
/// - The holder renews the lease every [`renew`](Self::renew_every)
///   interval (and with each change it handles, in the same transaction);
///   each renewal lasts [`duration`](Self::duration) from the server's now.
/// - A waiting instance tries to take it every [`poll`](Self::poll_every)
///   interval, with an update that matches only a lease expired (or
///   released). Expiries are in the server's clock, which each instance
///   reads from the server's `hello` when it tries to take the lease (so
///   clocks that differ between machines do not matter, within a round
///   trip).
/// - **Takeover bound**: when the holder stops cleanly it releases the
///   lease and another takes it within one poll interval; when it dies
///   (killed, its machine gone) its lease runs out at most `duration` after
///   its last renewal, so another instance takes over within
///   `duration + poll` ([`takeover_bound`](Self::takeover_bound), 11 s by
///   default), then resumes from the saved position.
/// - **A holder that died inside a transaction** (a handler's, or a copy
///   follower's page) leaves it open, holding its writes (the position's
///   included) until the server aborts it (`transactionLifetimeLimitSeconds`,
///   60 s by default). Each instance runs its transactions on one session
///   whose id it records with the lease when it takes it; the instance that
///   takes an expired lease first ends that session (`killSessions`),
///   which aborts the transaction, so the takeover stays within the bound.
///   Where the server has no `killSessions` or the user lacks the right
///   to run it (the `killAnySession` action; a user's own sessions need
///   none), the takeover waits for the server's abort instead.
/// - A holder that lost its lease without knowing it (paused past its
///   expiry) handles nothing more: each change's transaction moves the
///   position only while the lease is its own and unexpired, so its
///   transaction changes nothing and it goes back to waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    duration: Duration,
    renew: Duration,
    poll: Duration,
}

impl Default for Lease {
    /// 10 s, renewed every 3 s; waiting instances try every 1 s.
    fn default() -> Self {
        Lease {
            duration: Duration::from_secs(10),
            renew: Duration::from_secs(3),
            poll: Duration::from_secs(1),
        }
    }
}

impl Lease {
    /// Each renewal lasts `duration` (at least 1 ms); the renew interval
    /// is kept below half of it.
    pub fn duration(mut self, duration: Duration) -> Self {
        self.duration = duration.max(Duration::from_millis(1));
        self.renew = self.renew.min(self.duration / 2);
        self
    }

    /// The holder renews every `interval` (kept below half the duration).
    pub fn renew_every(mut self, interval: Duration) -> Self {
        self.renew = interval.min(self.duration / 2);
        self
    }

    /// A waiting instance tries to take the lease every `interval`.
    pub fn poll_every(mut self, interval: Duration) -> Self {
        self.poll = interval;
        self
    }

    /// How long a renewal lasts.
    pub fn lease_duration(&self) -> Duration {
        self.duration
    }

    /// How often the holder renews.
    pub fn renew_interval(&self) -> Duration {
        self.renew
    }

    /// How often a waiting instance tries to take it.
    pub fn poll_interval(&self) -> Duration {
        self.poll
    }

    /// The longest another instance takes to take over from a holder that
    /// died: `duration + poll` (plus the time to open its stream).
    pub fn takeover_bound(&self) -> Duration {
        self.duration + self.poll
    }

    pub(super) fn millis(&self) -> i64 {
        i64::try_from(self.duration.as_millis()).unwrap_or(i64::MAX)
    }
}

/// `Unauthorized`: the user may not run `killSessions`.
const UNAUTHORIZED: i32 = 13;
/// `CommandNotFound`: the server has no `killSessions`.
const COMMAND_NOT_FOUND: i32 = 59;

impl Store {
    /// Takes the lease when it is free, expired or already this
    /// instance's: `true` when this instance holds it now, with this
    /// instance's session recorded beside it. Before taking an expired
    /// lease of another holder, ends the transaction that holder's session
    /// may have left open ([`end_dead_session`](Self::end_dead_session)):
    /// its writes would otherwise hold this update until the server aborts
    /// it.
    pub(super) async fn take(&self) -> Result<bool> {
        self.measure_clock().await?;
        let now = self.server_now();
        let found = self
            .coll
            .find_one(doc! { "_id": &self.name })
            .await
            .map_err(|e| Store::error(e, "find in"))?;
        if let Some(found) = found {
            let other = matches!(found.get("holder"), Some(Bson::String(h)) if *h != self.holder);
            let expired = found
                .get_datetime("leaseUntil")
                .is_ok_and(|until| *until <= now);
            if other && !expired {
                return Ok(false);
            }
            if let (true, Ok(dead)) = (other, found.get_document("session")) {
                self.end_dead_session(dead).await?;
            }
        }
        let filter = doc! {
            "_id": &self.name,
            "$or": [
                { "holder": &self.holder },
                { "holder": Bson::Null },
                { "leaseUntil": { "$lte": now } },
            ],
        };
        let set = doc! {
            "holder": &self.holder,
            "leaseUntil": self.lease_until(),
            "session": &self.session,
        };
        let done = self
            .coll
            .update_one(filter, doc! { "$set": set })
            .await
            .map_err(|e| Store::error(e, "update"))?;
        Ok(done.matched_count == 1)
    }

    /// Ends the session `lsid` of a holder whose lease expired
    /// (`killSessions`), which aborts the transaction it left open: a
    /// holder killed inside a handler's transaction or a follower's page.
    /// A holder that is alive after all (paused past its expiry) finds its
    /// transaction aborted and its lease gone, and handles nothing more.
    /// Where the server has no `killSessions` or the user may not run it,
    /// nothing is ended and the takeover waits for the server to abort the
    /// transaction (`transactionLifetimeLimitSeconds`, 60 s by default).
    async fn end_dead_session(&self, lsid: &BsonDocument) -> Result<()> {
        let killed = self
            .coll
            .client()
            .database("admin")
            .run_command(doc! { "killSessions": [lsid] })
            .await;
        match killed {
            Ok(_) => {
                self.ended.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Err(e) if matches!(e.code(), Some(UNAUTHORIZED | COMMAND_NOT_FOUND)) => Ok(()),
            Err(e) => Err(Error::from_server(e, "run killSessions on", "admin")),
        }
    }

    /// Renews the lease while this instance still holds it: `false` when
    /// it is lost.
    pub(super) async fn renew(&self) -> Result<bool> {
        let done = self
            .coll
            .update_one(
                self.held(doc! {}),
                doc! { "$set": { "leaseUntil": self.lease_until() } },
            )
            .await
            .map_err(|e| Store::error(e, "update"))?;
        Ok(done.matched_count == 1)
    }

    /// Gives the lease up (when this instance holds it), so another
    /// instance takes it at its next poll.
    pub(super) async fn release(&self) -> Result<()> {
        self.coll
            .update_one(
                doc! { "_id": &self.name, "holder": &self.holder },
                doc! { "$set": { "holder": Bson::Null, "leaseUntil": self.server_now() } },
            )
            .await
            .map_err(|e| Store::error(e, "update"))?;
        Ok(())
    }
}
