//! Whether the deployment runs multi-document transactions, asked once per
//! helper, and the helper's retry count that lives beside the answer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bson::doc;
use mongodb::Client;

use crate::error::{Error, Result};

/// Fails with [`Error::TransactionsUnsupported`] when the server is a
/// standalone (no replica set name, not a mongos): one `hello` round trip.
pub(crate) async fn require_transactions(client: &Client, models: &[&'static str]) -> Result<()> {
    refuse_unless(supports_transactions(client).await?, models)
}

fn refuse_unless(supported: bool, models: &[&'static str]) -> Result<()> {
    if supported {
        Ok(())
    } else {
        Err(Error::TransactionsUnsupported {
            models: models.to_vec(),
        })
    }
}

/// Sends `hello` and reads whether the deployment runs multi-document transactions.
async fn supports_transactions(client: &Client) -> Result<bool> {
    let hello = client
        .database("admin")
        .run_command(doc! { "hello": 1 })
        .await
        .map_err(|e| Error::from_server(e, "run hello on", "admin"))?;
    let replica_set = hello.get_str("setName").is_ok();
    let mongos = hello.get_str("msg").ok() == Some("isdbgrid");
    Ok(replica_set || mongos)
}

/// What the transactions of one helper ([`Repo`](crate::Repo),
/// [`Links`](crate::Links)) share with its clones: whether the deployment runs
/// multi-document transactions, asked once, so after their first transaction
/// they send no `hello` of their own; and how many attempts they retried.
///
/// The driver does not refuse a transaction on a directly connected
/// standalone, and some servers accept one there; asking before the first
/// write refuses a standalone with nothing written.
#[derive(Debug, Clone, Default)]
pub(crate) struct TxnState(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    supported: tokio::sync::OnceCell<bool>,
    retries: AtomicU64,
}

impl TxnState {
    /// How many attempts (whole transactions or commits) the transactions
    /// run with this state have retried so far.
    pub(crate) fn retries(&self) -> u64 {
        self.0.retries.load(Ordering::Relaxed)
    }

    /// The counter the runner adds each retry to.
    pub(super) fn retry_counter(&self) -> &AtomicU64 {
        &self.0.retries
    }

    /// Fails with [`Error::TransactionsUnsupported`] on a standalone.
    pub(super) async fn require(&self, client: &Client, models: &[&'static str]) -> Result<()> {
        let supported = self
            .0
            .supported
            .get_or_try_init(|| supports_transactions(client))
            .await?;
        refuse_unless(*supported, models)
    }
}
