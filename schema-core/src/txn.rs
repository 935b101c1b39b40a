//! Transactions: the topology check, and (with the relationship helpers) the
//! runner that retries on transient errors.

use bson::doc;
use mongodb::Client;

use crate::error::{Error, Result};

/// Fails with [`Error::TransactionsUnsupported`] when the server is a
/// standalone (no replica set name, not a mongos): one `hello` round trip.
pub async fn require_transactions(client: &Client, models: &[&'static str]) -> Result<()> {
    let hello = client
        .database("admin")
        .run_command(doc! { "hello": 1 })
        .await
        .map_err(|e| Error::from_server(e, "run hello on", "admin"))?;
    let replica_set = hello.get_str("setName").is_ok();
    let mongos = hello.get_str("msg") == Ok("isdbgrid");
    if replica_set || mongos {
        Ok(())
    } else {
        Err(Error::TransactionsUnsupported {
            models: models.to_vec(),
        })
    }
}
