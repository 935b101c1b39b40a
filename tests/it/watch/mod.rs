//! Typed change streams (`Repo::watch`) on the test server: every kind of
//! event read as the model, a document written at an earlier version
//! upgraded on its insert, a change the model cannot read (its error names
//! the `_id` and no stored value; the stream stops there unless told to
//! skip it), the typed filter, and resuming from a saved token. The
//! recovery across a server restart and a lost history are in
//! `tests/reliability/watch.rs`.

mod consumer;
mod copies;
mod events;
mod filter;
mod images;

use std::time::Duration;

use futures_util::TryStreamExt;
use schema_core::prelude::*;
use schema_core::{ChangeStream, Event, Upgrade};
use serde::{Deserialize, Serialize};

/// An order: the model most tests watch.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "watched_orders")]
pub struct Order {
    #[serde(rename = "_id")]
    pub id: String,
    pub status: String,
    #[serde(rename = "itemCount")]
    pub items: i64,
}

/// Version 1 of a parcel: one `state` field.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "watched_parcels")]
pub struct ParcelV1 {
    #[serde(rename = "_id")]
    pub id: String,
    pub state: String,
}

/// Version 2: `status`, and a weight.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "watched_parcels", migrate_from(ParcelV1))]
pub struct Parcel {
    #[serde(rename = "_id")]
    pub id: String,
    pub status: String,
    pub grams: i64,
}

impl Upgrade<ParcelV1> for Parcel {
    fn upgrade(old: ParcelV1) -> Result<Self, String> {
        Ok(Parcel {
            id: old.id,
            status: old.state,
            grams: 0,
        })
    }
}

pub fn order(id: &str, status: &str, items: i64) -> Order {
    Order {
        id: id.into(),
        status: status.into(),
        items,
    }
}

/// How long a test waits for the next event: long, because the test
/// server's change streams fall far behind while the rest of the suite
/// writes (see `consumer::CATCH_UP`).
const WAIT: Duration = Duration::from_secs(120);

/// The next item of `stream`, waited for at most [`WAIT`].
pub async fn next<M: Document>(
    stream: &mut ChangeStream<M>,
) -> Option<schema_core::Result<Event<M>>> {
    match tokio::time::timeout(WAIT, stream.try_next()).await {
        Ok(Ok(Some(event))) => Some(Ok(event)),
        Ok(Ok(None)) => None,
        Ok(Err(e)) => Some(Err(e)),
        Err(_) => panic!("no change within {WAIT:?}"),
    }
}

/// The next event of `stream`, which must be one.
pub async fn event<M: Document>(stream: &mut ChangeStream<M>) -> Event<M> {
    match next(stream).await {
        Some(Ok(event)) => event,
        Some(Err(e)) => panic!("an error instead of an event: {e}"),
        None => panic!("the stream ended"),
    }
}
