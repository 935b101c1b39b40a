//! [`Lease`]: which instance of a consumer handles its changes, held in
//! its position document (`holder`, `leaseUntil` in the server's clock),
//! taken with a conditional update, renewed by its holder, released on
//! stop.

use std::time::Duration;

use bson::{doc, Bson};

use super::position::Store;
use crate::error::Result;

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
///   default), then resumes from the saved position. One exception: when
///   the holder died inside a handler's transaction, that transaction
///   holds its writes (the position's included) until the server aborts
///   it (`transactionLifetimeLimitSeconds`, 60 s by default), and the
///   takeover waits for that too.
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

impl Store {
    /// Takes the lease when it is free, expired or already this
    /// instance's: `true` when this instance holds it now. A write of a
    /// transaction still open on the position (a holder that died inside
    /// one) holds the update until the server ends that transaction.
    pub(super) async fn take(&self) -> Result<bool> {
        self.measure_clock().await?;
        let filter = doc! {
            "_id": &self.name,
            "$or": [
                { "holder": &self.holder },
                { "holder": Bson::Null },
                { "leaseUntil": { "$lte": self.server_now() } },
            ],
        };
        let set = doc! { "holder": &self.holder, "leaseUntil": self.lease_until() };
        let done = self
            .coll
            .update_one(filter, doc! { "$set": set })
            .await
            .map_err(|e| Store::error(e, "update"))?;
        Ok(done.matched_count == 1)
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
