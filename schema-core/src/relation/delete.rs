//! Deleting a parent by the delete policies its children declare
//! (`#[reference(index, to = Parent, on_delete = "...")]`, see
//! [`delete_policy`](crate::model::delete_policy)): [`Schema::delete`], with a
//! report and a batched mode, and the walk
//! [`Repo::delete`](crate::Repo::delete) runs inside its transaction. The
//! policies are those of every model that declares one toward the
//! parent's type (registered at link time), so a child model missing from
//! the schema is not skipped: [`Schema::delete`] refuses such a delete
//! before anything is sent.
//!
//! **Order.** For the document to delete, its dependents first, by policy:
//! every `restrict` is counted first (a child found refuses the delete
//! with [`Error::Restricted`] before anything is written), then each
//! `set_null`/`unset` reference is cleared and each `cascade` child
//! deleted, each child only after its own dependents, by the same rules;
//! the parent last. So at every point between two writes every remaining
//! child still has its parent: an interrupted delete leaves no dangling
//! reference, and running it again finishes it.
//!
//! **Queries.** Children are found through their reference's index
//! (`{ref: {$in: [...]}}`, `_id` only, a batch at a time), cleared and
//! deleted by `_id`; before anything is sent, every child collection the
//! delete can reach is asked once (`listIndexes`) for an index led by the
//! reference, else [`Error::MissingIndex`]: no query of a delete scans a
//! collection.
//!
//! **Transactions.** By default the whole family goes in one transaction
//! (the helpers' retry and `{w: "majority", j: true}`): all or nothing.
//! A family too large for one transaction goes in
//! [`batched`](Delete::batched) mode: each write (at most `size` children
//! cleared or deleted) is a command of its own, in the order above, so an
//! interruption leaves a consistent state and a rerun completes the rest,
//! never touching a document outside the family. A `restrict` found deep in
//! a batched cascade stops it there: what was deleted stays deleted, the
//! parent stays.
//!
//! A child inserted while its parent is being deleted may outlive it (no
//! write of the delete conflicts with an insert); `verify`-style checks of
//! references are not part of this module.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use schema_core::Schema;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[document(collection = "users")]
//! # struct User { #[serde(rename = "_id")] id: String }
//! #[derive(Document, Serialize, Deserialize)]
//! #[serde(rename_all = "camelCase")]
//! #[document(collection = "posts")]
//! struct Post {
//!     #[serde(rename = "_id")]
//!     id: String,
//!     #[reference(index, to = User, on_delete = "cascade")]
//!     author_id: String,
//! }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let schema = Schema::new().with::<User>().with::<Post>();
//! let id = "ada".to_owned();
//! let deleted = schema.delete::<User>(&db, &id).await?; // ada and her posts, one transaction
//! println!("{deleted}");
//! let deleted = schema.delete::<User>(&db, &id).batched(1_000).await?; // a large family
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::future::IntoFuture;

use bson::{doc, Bson, Document as BsonDocument};
use futures_util::future::BoxFuture;
use mongodb::{ClientSession, Database};

use crate::error::{id_text, Error, Result};
use crate::model::delete_policy::{PolicyGraph, RefPolicy};
use crate::model::{Document, OnDelete};
use crate::setup::schema::Schema;
use crate::txn::{RetryPolicy, TxnConfig, TxnState};

/// How many children a batched delete clears or deletes per command unless
/// told ([`Delete::batched`] sets it).
pub const DEFAULT_DELETE_BATCH: u32 = 1_000;

impl Schema {
    /// Deletes the `P` with `id` and, by the delete policies of this
    /// schema's models, what references it (see the [module
    /// docs](crate::relation::delete)). Refuses a cycle of cascades first
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
    /// large for one): resumable and idempotent, see the [module
    /// docs](crate::relation::delete).
    pub fn batched(mut self, size: u32) -> Self {
        self.batch = Some(size.max(1));
        self
    }

    /// The retry policy of its transaction (the helpers' default otherwise).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
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

/// What a delete did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Deleted {
    /// Whether the parent existed (and was deleted).
    pub parent: bool,
    /// Documents deleted by cascades, per collection, in the order first
    /// reached.
    pub cascaded: Vec<(&'static str, u64)>,
    /// References cleared by `set_null` or `unset`, per collection and
    /// field.
    pub cleared: Vec<(&'static str, &'static str, u64)>,
}

impl Deleted {
    /// Documents deleted from `collection` by cascades.
    pub fn cascaded_from(&self, collection: &str) -> u64 {
        self.cascaded
            .iter()
            .filter(|(c, _)| *c == collection)
            .map(|(_, n)| n)
            .sum()
    }

    fn add_cascaded(&mut self, collection: &'static str, n: u64) {
        match self.cascaded.iter_mut().find(|(c, _)| *c == collection) {
            Some((_, total)) => *total += n,
            None => self.cascaded.push((collection, n)),
        }
    }

    fn add_cleared(&mut self, collection: &'static str, field: &'static str, n: u64) {
        match self
            .cleared
            .iter_mut()
            .find(|(c, f, _)| *c == collection && *f == field)
        {
            Some((_, _, total)) => *total += n,
            None => self.cleared.push((collection, field, n)),
        }
    }
}

impl fmt::Display for Deleted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "parent {}",
            if self.parent { "deleted" } else { "not found" }
        )?;
        for (collection, n) in &self.cascaded {
            write!(f, "; {n} deleted from {collection}")?;
        }
        for (collection, field, n) in &self.cleared {
            write!(f, "; {n} {collection}.{field} cleared")?;
        }
        Ok(())
    }
}

/// Before anything is sent: every child collection reachable from
/// `parent` has an index led by its reference (one `listIndexes` per
/// collection and reference). A collection that does not exist has no
/// index and no child: nothing to scan, so it passes.
pub(crate) async fn require_indexes(
    db: &Database,
    graph: &PolicyGraph,
    parent: &'static str,
) -> Result<()> {
    let mut todo = vec![parent];
    let mut seen: Vec<(&str, &str)> = Vec::new();
    while let Some(at) = todo.pop() {
        for edge in graph.dependents(at) {
            if seen.contains(&(edge.collection, edge.field)) {
                continue;
            }
            seen.push((edge.collection, edge.field));
            if edge.policy == OnDelete::Cascade {
                todo.push(edge.collection);
            }
            let indexes = crate::query::served::listed_indexes(db, edge.collection).await?;
            // No index at all, not even `_id`'s: the collection does not exist.
            if indexes.is_empty() {
                continue;
            }
            let led = indexes
                .iter()
                .any(|i| i.keys.keys().next().map(String::as_str) == Some(edge.field));
            if !led {
                return Err(Error::MissingIndex {
                    collection: edge.collection,
                    index: format!("{}_1", edge.field),
                });
            }
        }
    }
    Ok(())
}

/// For [`Repo`](crate::Repo)'s deletes: what the models declare about the
/// documents `ids` of `collection`, deleted in the same transaction by the
/// caller: the policies of their dependents (restrict first), then the pull
/// of their ids from the other side of their two-sided links.
pub(crate) async fn before_delete(
    db: &Database,
    graph: &PolicyGraph,
    mut session: Option<&mut ClientSession>,
    collection: &'static str,
    ids: Vec<Bson>,
) -> Result<()> {
    let mut walk = Walk {
        graph,
        db,
        batch: DEFAULT_DELETE_BATCH,
        report: Deleted::default(),
    };
    walk.dependents(session.as_deref_mut(), collection, ids.clone())
        .await?;
    walk.pull_links(session, collection, Bson::Document(doc! { "$in": ids }))
        .await
}

/// One delete's walk of the family, with what it did so far.
struct Walk<'g> {
    graph: &'g PolicyGraph,
    db: &'g Database,
    batch: u32,
    report: Deleted,
}

impl<'g> Walk<'g> {
    /// The document `id` of `collection`, after its dependents.
    async fn family(
        &mut self,
        mut session: Option<&mut ClientSession>,
        collection: &'static str,
        id: Bson,
    ) -> Result<()> {
        self.dependents(session.as_deref_mut(), collection, vec![id.clone()])
            .await?;
        self.pull_links(session.as_deref_mut(), collection, id.clone())
            .await?;
        let coll = self.db.collection::<BsonDocument>(collection);
        let deleted = crate::txn::with_session!(coll.delete_one(doc! { "_id": id }), session)
            .map_err(|e| Error::from_server(e, "delete from", collection))?;
        self.report.parent = deleted.deleted_count == 1;
        Ok(())
    }

    /// Pulls the ids `matcher` matches, documents of `collection` about to
    /// be deleted, from the other side of its model's two-sided links
    /// (before the delete: an interrupted batched delete leaves the
    /// documents, which a rerun deletes, never an id of a deleted one).
    async fn pull_links(
        &self,
        mut session: Option<&mut ClientSession>,
        collection: &'static str,
        matcher: Bson,
    ) -> Result<()> {
        for link in self.graph.links_of(collection) {
            link.pull(self.db, session.as_deref_mut(), matcher.clone())
                .await?;
        }
        Ok(())
    }

    /// Applies the policies of the children of the documents `ids` of
    /// `parent` (restrict first), leaving those documents themselves.
    fn dependents<'s>(
        &'s mut self,
        mut session: Option<&'s mut ClientSession>,
        parent: &'static str,
        ids: Vec<Bson>,
    ) -> BoxFuture<'s, Result<()>> {
        Box::pin(async move {
            let edges: Vec<RefPolicy> =
                self.graph.dependents(parent).into_iter().cloned().collect();
            for edge in &edges {
                let refs = doc! { edge.field: { "$in": ids.clone() } };
                match edge.policy {
                    OnDelete::Restrict => self.restrict(session.as_deref_mut(), edge, refs).await?,
                    OnDelete::SetNull | OnDelete::Unset => loop {
                        let children = self.batch_of(session.as_deref_mut(), edge, &refs).await?;
                        if children.is_empty() {
                            break;
                        }
                        let n = self
                            .clear(session.as_deref_mut(), edge, &refs, children)
                            .await?;
                        self.report.add_cleared(edge.collection, edge.field, n);
                        if n == 0 {
                            break;
                        }
                    },
                    OnDelete::Cascade => loop {
                        let children = self.batch_of(session.as_deref_mut(), edge, &refs).await?;
                        if children.is_empty() {
                            break;
                        }
                        self.dependents(session.as_deref_mut(), edge.collection, children.clone())
                            .await?;
                        self.pull_links(
                            session.as_deref_mut(),
                            edge.collection,
                            Bson::Document(doc! { "$in": children.clone() }),
                        )
                        .await?;
                        let coll = self.db.collection::<BsonDocument>(edge.collection);
                        let filter = doc! { "_id": { "$in": children } };
                        let deleted = crate::txn::with_session!(
                            coll.delete_many(filter),
                            session.as_deref_mut()
                        )
                        .map_err(|e| Error::from_server(e, "delete from", edge.collection))?;
                        self.report
                            .add_cascaded(edge.collection, deleted.deleted_count);
                    },
                }
            }
            Ok(())
        })
    }

    /// [`Error::Restricted`] when a child references one of the documents.
    async fn restrict(
        &self,
        mut session: Option<&mut ClientSession>,
        edge: &RefPolicy,
        refs: BsonDocument,
    ) -> Result<()> {
        let coll = self.db.collection::<BsonDocument>(edge.collection);
        let count =
            crate::txn::with_session!(coll.count_documents(refs.clone()), session.as_deref_mut())
                .map_err(|e| Error::from_server(e, "count in", edge.collection))?;
        if count == 0 {
            return Ok(());
        }
        // Which document still has children (one more query, on the error
        // path only).
        let find = coll.find_one(refs).projection(doc! { edge.field: 1 });
        let child = crate::txn::with_session!(find, session)
            .map_err(|e| Error::from_server(e, "find in", edge.collection))?;
        let id = child
            .and_then(|c| c.get(edge.field).cloned())
            .map_or_else(String::new, |id| id_text(&id));
        Err(Error::Restricted {
            parent: edge.parent,
            id,
            collection: edge.collection,
            field: edge.field,
            count,
        })
    }

    /// The `_id`s of at most one batch of children matching `refs`, on the
    /// reference's index.
    async fn batch_of(
        &self,
        session: Option<&mut ClientSession>,
        edge: &RefPolicy,
        refs: &BsonDocument,
    ) -> Result<Vec<Bson>> {
        let coll = self.db.collection::<BsonDocument>(edge.collection);
        let find = coll
            .find(refs.clone())
            .projection(doc! { "_id": 1 })
            .limit(i64::from(self.batch))
            .batch_size(self.batch);
        let docs = crate::exec::cursor::collect(find, session)
            .await
            .map_err(|e| Error::from_server(e, "find in", edge.collection))?;
        Ok(docs
            .into_iter()
            .filter_map(|mut d| d.remove("_id"))
            .collect())
    }

    /// Sets to null or removes the reference of `children` (those that
    /// still reference the documents), stamping them; how many changed.
    async fn clear(
        &self,
        session: Option<&mut ClientSession>,
        edge: &RefPolicy,
        refs: &BsonDocument,
        children: Vec<Bson>,
    ) -> Result<u64> {
        let mut update = match edge.policy {
            OnDelete::Unset => doc! { "$unset": { edge.field: "" } },
            _ => doc! { "$set": { edge.field: Bson::Null } },
        };
        edge.stamp.apply(&mut update, false)?;
        let mut filter = refs.clone();
        filter.insert("_id", doc! { "$in": children });
        let coll = self.db.collection::<BsonDocument>(edge.collection);
        let updated = crate::txn::with_session!(coll.update_many(filter, update), session)
            .map_err(|e| Error::from_server(e, "update", edge.collection))?;
        Ok(updated.modified_count)
    }
}
