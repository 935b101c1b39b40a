//! The delete a [`Schema`] runs by the policies: [`Schema::delete`] and the
//! [`Delete`] it returns, its options, and its run (the walk of the family
//! in one transaction, or in batches).

use std::future::IntoFuture;

use bson::Bson;
use futures_util::future::BoxFuture;
use mongodb::{ClientSession, Database};

use super::report::Deleted;
use super::walk::{require_indexes, Walk, DEFAULT_DELETE_BATCH};
use crate::error::{Error, Result};
use crate::model::Document;
use crate::setup::schema::Schema;
use crate::txn::{RetryPolicy, TxnConfig, TxnState};

impl Schema {
    /// Deletes the `P` with `id` and, by the delete policies of this
    /// schema's models, what references it (see the book's chapter on delete
    /// policies). Refuses a cycle of cascades first
    /// ([`Error::CascadeCycle`]).
    pub fn delete<'a, P: Document>(&'a self, db: &'a Database, id: &'a P::Id) -> Delete<'a, P> {
        Delete {
            schema: self,
            db,
            id,
            batch: None,
            txn: TxnConfig::default(),
            session: None,
        }
    }
}

/// A delete by the policies (see [`Schema::delete`]); await it.
#[must_use = "a delete does nothing until it is awaited"]
pub struct Delete<'a, P: Document> {
    schema: &'a Schema,
    db: &'a Database,
    id: &'a P::Id,
    /// `Some(size)`: batched, no transaction.
    batch: Option<u32>,
    txn: TxnConfig,
    session: Option<&'a mut ClientSession>,
}

impl<'a, P: Document> Delete<'a, P> {
    /// Deletes in batches of at most `size` children per command, each
    /// command on its own instead of one transaction (for a family too
    /// large for one): resumable and idempotent, see the book's chapter on
    /// delete policies.
    pub fn batched(mut self, size: u32) -> Self {
        self.batch = Some(size.max(1));
        self
    }

    /// The retry policy of its transaction (the helpers' default otherwise).
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.txn.policy = policy;
        self
    }

    /// Runs in the caller's session: joins the transaction in progress
    /// there (the caller commits or aborts), or runs one of its own on it.
    /// A batched delete sends its commands in the session, without a
    /// transaction.
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }

    async fn run(self) -> Result<Deleted> {
        self.schema.policies()?;
        let graph = crate::model::delete_policy::reach_of::<P>()?;
        // Every model the delete reaches is one this schema sets up (its
        // reference index, its validator): refused before anything is sent.
        let known = |model: &str| self.schema.models().iter().any(|m| m.name == model);
        if !known(P::NAME) {
            return Err(Error::Model(format!(
                "`{}` is not in this schema: add it (`.with::<{}>()`, with every model that references it); nothing was sent",
                P::NAME,
                P::NAME
            )));
        }
        if let Some(edge) = graph.policies().iter().find(|e| !known(e.model)) {
            return Err(Error::Model(format!(
                "`{}` declares `on_delete = \"{}\"` on `{}.{}` toward `{}`, but is not in this schema: add it (`.with::<{}>()`) so that setup creates its reference index; nothing was sent",
                edge.model,
                edge.policy.name(),
                edge.collection,
                edge.field,
                edge.parent,
                edge.model
            )));
        }
        let id = crate::model::codec::id_to_bson::<P>(self.id)?;
        require_indexes(self.db, graph, P::COLLECTION).await?;
        let walk = Walk {
            graph,
            db: self.db,
            batch: self.batch.unwrap_or(DEFAULT_DELETE_BATCH),
            report: Deleted::default(),
        };
        match self.batch {
            Some(_) => {
                let mut walk = walk;
                walk.family(self.session, P::COLLECTION, id).await?;
                Ok(walk.report)
            }
            None => {
                let state = TxnState::default();
                let client = self.db.client().clone();
                let context = (walk, id);
                crate::txn::transact(
                    &state,
                    &[P::NAME],
                    &client,
                    self.session,
                    &self.txn,
                    context,
                    attempt::<P>,
                )
                .await
            }
        }
    }
}

/// One attempt of the transaction of a delete: the walk from the start.
fn attempt<'s, P: Document>(
    session: &'s mut ClientSession,
    (walk, id): &'s mut (Walk<'_>, Bson),
) -> BoxFuture<'s, Result<Deleted>> {
    Box::pin(async move {
        walk.report = Deleted::default();
        walk.family(Some(session), P::COLLECTION, id.clone())
            .await?;
        Ok(walk.report.clone())
    })
}

impl<'a, P: Document> IntoFuture for Delete<'a, P> {
    type Output = Result<Deleted>;
    type IntoFuture = BoxFuture<'a, Result<Deleted>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}
