//! The walk of a family: the dependents of the documents deleted, found
//! through their reference's index a batch at a time, by policy (restrict
//! first), each before its own parent; the check that every reference the
//! walk follows is indexed; and the walk [`Repo`](crate::Repo)'s deletes run.

use bson::{doc, Bson, Document as BsonDocument};
use futures_util::future::BoxFuture;
use mongodb::{ClientSession, Database};

use super::report::Deleted;
use crate::error::{id_text, Error, Result};
use crate::model::delete_policy::{PolicyGraph, RefPolicy};
use crate::model::OnDelete;

/// How many children a batched delete clears or deletes per command unless
/// told ([`Delete::batched`](super::Delete::batched) sets it).
pub const DEFAULT_DELETE_BATCH: u32 = 1_000;

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
            let indexes = crate::query::server_indexes::listed_indexes(db, edge.collection).await?;
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
pub(super) struct Walk<'g> {
    pub(super) graph: &'g PolicyGraph,
    pub(super) db: &'g Database,
    pub(super) batch: u32,
    pub(super) report: Deleted,
}

impl<'g> Walk<'g> {
    /// The document `id` of `collection`, after its dependents.
    pub(super) async fn family(
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
