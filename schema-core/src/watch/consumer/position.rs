//! The position store: one document per consumer name in
//! [`CONSUMERS`](super::CONSUMERS), read on start and moved forward after
//! each change handled, in the handler's transaction or after it. Every
//! write to it is guarded by the lease (this instance its holder, its
//! expiry in the server's clock still ahead) and by the token it moves
//! from.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use bson::{doc, Bson, DateTime, Document as BsonDocument};
use mongodb::change_stream::event::ResumeToken;
use mongodb::{ClientSession, Collection, Database};

use crate::error::{DriverErrorExt, Error, Result};
use crate::model::Document;
use crate::txn::with_session;
use crate::watch::Event;

/// `DuplicateKey`: the document is there already.
const DUPLICATE_KEY: i32 = 11000;

/// The position document of one consumer, as one instance writes it.
pub(super) struct Store {
    pub(super) coll: Collection<BsonDocument>,
    pub(super) name: String,
    pub(super) holder: String,
    /// How long a lease lasts from each renewal, in milliseconds.
    pub(super) lease_ms: i64,
    /// The server's clock less this machine's, in milliseconds, as last
    /// measured ([`Store::measure_clock`]).
    pub(super) offset_ms: AtomicI64,
    /// The id (`lsid`) of the session this instance runs its transactions
    /// on, recorded with the lease (`session`) so that a successor can end
    /// a transaction of it left open.
    pub(super) session: BsonDocument,
    /// How many dead holders' sessions [`take`](Store::take) ended.
    pub(super) ended: AtomicU64,
}

/// Where a consumer stands, as read on start.
pub(super) struct Position {
    /// The token of the last change handled (or of the point it first
    /// started from); `None` for a consumer that never ran.
    pub(super) token: Option<ResumeToken>,
}

/// What became of one change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// Handled, and the position moved past it.
    Handled,
    /// The position was already at it: handled before, nothing done.
    AlreadyHandled,
    /// The lease is no longer this instance's: nothing done.
    LeaseLost,
}

impl Store {
    pub(super) fn new(
        db: &Database,
        name: &str,
        holder: &str,
        lease_ms: i64,
        session: BsonDocument,
    ) -> Self {
        Store {
            coll: db.collection(super::CONSUMERS),
            name: name.to_owned(),
            holder: holder.to_owned(),
            lease_ms,
            offset_ms: AtomicI64::new(0),
            session,
            ended: AtomicU64::new(0),
        }
    }

    /// The server's clock now, as this machine estimates it from the last
    /// measure.
    pub(super) fn server_now(&self) -> DateTime {
        let local = DateTime::now().timestamp_millis();
        DateTime::from_millis(local.saturating_add(self.offset_ms.load(Ordering::Relaxed)))
    }

    /// Measures the server's clock against this machine's (`hello`'s
    /// `localTime`, taken as read halfway through the round trip), so that
    /// every instance judges the lease by the one clock, within a round
    /// trip.
    pub(super) async fn measure_clock(&self) -> Result<()> {
        let before = DateTime::now().timestamp_millis();
        let hello = self
            .coll
            .client()
            .database("admin")
            .run_command(doc! { "hello": 1 })
            .await
            .map_err(|e| Error::from_server(e, "run hello on", "admin"))?;
        let after = DateTime::now().timestamp_millis();
        if let Ok(server) = hello.get_datetime("localTime") {
            let offset = server.timestamp_millis() - (before + after) / 2;
            self.offset_ms.store(offset, Ordering::Relaxed);
        }
        Ok(())
    }

    /// The error of a command on the position store.
    pub(super) fn error(e: mongodb::error::Error, action: &'static str) -> Error {
        Error::from_server(e, action, super::CONSUMERS)
    }

    /// The filter of this consumer's document while this instance holds
    /// its lease (in the server's clock), with `more`.
    pub(super) fn held(&self, more: BsonDocument) -> BsonDocument {
        let mut filter = doc! {
            "_id": &self.name,
            "holder": &self.holder,
            "leaseUntil": { "$gt": self.server_now() },
        };
        filter.extend(more);
        filter
    }

    /// The lease's new expiry: the server's now plus its duration.
    pub(super) fn lease_until(&self) -> DateTime {
        let now = self.server_now().timestamp_millis();
        DateTime::from_millis(now.saturating_add(self.lease_ms))
    }

    /// Creates the document of a consumer that never ran: no position, no
    /// holder, a lease long expired.
    pub(super) async fn ensure(&self) -> Result<()> {
        let fresh = doc! {
            "_id": &self.name,
            "token": Bson::Null,
            "clusterTime": Bson::Null,
            "handled": 0_i64,
            "holder": Bson::Null,
            "leaseUntil": DateTime::from_millis(0),
        };
        match self.coll.insert_one(fresh).await {
            Ok(_) => Ok(()),
            Err(e) if e.code() == Some(DUPLICATE_KEY) => Ok(()),
            Err(e) => Err(Store::error(e, "insert into")),
        }
    }

    /// Where the consumer stands.
    pub(super) async fn load(&self) -> Result<Position> {
        let found = self
            .coll
            .find_one(doc! { "_id": &self.name })
            .await
            .map_err(|e| Store::error(e, "find in"))?;
        let token = match found.as_ref().and_then(|d| d.get("token")) {
            None | Some(Bson::Null) => None,
            Some(token) => Some(read_token(token.clone())?),
        };
        Ok(Position { token })
    }

    /// Saves `token` as the starting point of a consumer that never ran
    /// (while this instance holds the lease): `false` when the lease is
    /// lost or another instance saved a point first.
    pub(super) async fn save_start(&self, token: &ResumeToken) -> Result<bool> {
        let done = self
            .coll
            .update_one(
                self.held(doc! { "token": Bson::Null }),
                doc! { "$set": { "token": token_bson(token)? } },
            )
            .await
            .map_err(|e| Store::error(e, "update"))?;
        Ok(done.matched_count == 1)
    }

    /// Moves the position from `prev` to `event`'s token (and renews the
    /// lease), in `session`'s transaction when given: `true` when it
    /// moved, `false` when the guard (this instance's lease, the position
    /// at `prev`) did not hold.
    pub(super) async fn advance<M: Document>(
        &self,
        session: Option<&mut ClientSession>,
        prev: Option<&ResumeToken>,
        event: &Event<M>,
    ) -> Result<bool> {
        let prev = match prev {
            Some(token) => token_bson(token)?,
            None => Bson::Null,
        };
        let update = doc! {
            "$set": {
                "token": token_bson(&event.token)?,
                "clusterTime": event.cluster_time.map_or(Bson::Null, Bson::Timestamp),
                "wallTime": event.wall_time.map_or(Bson::Null, Bson::DateTime),
                "leaseUntil": self.lease_until(),
            },
            "$inc": { "handled": 1_i64 },
        };
        let update = self
            .coll
            .update_one(self.held(doc! { "token": prev }), update);
        let done = with_session!(update, session)?;
        Ok(done.matched_count == 1)
    }

    /// After [`advance`](Self::advance) found its guard broken: whether
    /// the position is already at `token` (handled before) or the lease is
    /// lost, read in `session`'s transaction when given.
    pub(super) async fn after_miss(
        &self,
        session: Option<&mut ClientSession>,
        token: &ResumeToken,
    ) -> Result<Outcome> {
        let find = self.coll.find_one(doc! { "_id": &self.name });
        let found = with_session!(find, session)?;
        let at = found.as_ref().and_then(|d| d.get("token")).cloned();
        Ok(if at == Some(token_bson(token)?) {
            Outcome::AlreadyHandled
        } else {
            Outcome::LeaseLost
        })
    }
}

/// A resume token as stored.
fn token_bson(token: &ResumeToken) -> Result<Bson> {
    bson::serialize_to_bson(token).map_err(|e| Error::Serialize {
        model: "a consumer's position",
        field: Some("token".to_owned()),
        source: Box::new(e),
    })
}

/// A stored resume token.
fn read_token(stored: Bson) -> Result<ResumeToken> {
    bson::deserialize_from_bson(stored).map_err(|e| Error::Deserialize {
        model: "a consumer's position",
        source: Box::new(e),
    })
}
