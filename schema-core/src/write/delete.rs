//! Deletes by `_id`, of many and `find_one_and_delete`: each runs the
//! `on_delete` policies the models declare and pulls two-sided links.

use super::*;

impl<M: Document> Repo<M> {
    /// Deletes the document with this `_id`, with what the models declare.
    /// Returns whether it existed.
    ///
    /// The `on_delete` policies that any model declares toward `M` run
    /// first (see `delete_policy`: restrict,
    /// cascade through as many levels as declared, set_null, unset), and a
    /// model with two-sided links (`#[many_to_many(two_sided)]`) pulls the
    /// id of each document deleted from the inverse array of every document
    /// on the other side, all in one transaction (retried per the
    /// repository's policy; refused on a standalone): in a
    /// [`session`](Action::session), the caller's transaction if one is in
    /// progress, else one of its own on that session. Before anything is
    /// sent, every collection the policies reach must list an index led by
    /// the reference ([`Error::MissingIndex`]). Other models: one `delete`.
    pub fn delete<'a>(&'a self, id: &'a M::Id) -> Action<'a, bool> {
        self.action("delete", move |s| async move {
            let filter = Matching::exactly(doc! { "_id": id_to_bson::<M>(id)? });
            self.note_by_id("delete");
            Ok(self.cascade(s, filter, Delete::ById).await?.is_some())
        })
    }

    /// Deletes every document `filter` matches: one `delete`; returns how
    /// many. A model with two-sided links or with dependents (delete
    /// policies toward it) reads their ids and, in the same transaction,
    /// runs the policies and pulls the links (`find`, the policies' writes,
    /// an `update` per inverse array, `delete`), as [`delete`](Self::delete)
    /// does.
    pub fn delete_many(&self, filter: impl Into<Filter<M>>) -> Action<'_, u64, DeleteOptions> {
        let (filter, options) = (filter.into(), DeleteOptions::default());
        Action::new(
            M::COLLECTION,
            "delete_many",
            options,
            move |s, o| async move {
                let filter = self.query(filter, &o.filtered).await?;
                let deleted = self.cascade(s, filter, Delete::Many).await?;
                Ok(deleted.map_or(0, |d| d.count))
            },
        )
    }

    /// Deletes the first document `filter` matches and returns it: one
    /// `findAndModify` (`None` when none matches). The delete policies
    /// toward the model and its two-sided links are applied in the same
    /// transaction, as by [`delete`](Self::delete).
    pub fn find_one_and_delete(
        &self,
        filter: impl Into<Filter<M>>,
    ) -> Action<'_, Option<M>, DeleteOptions> {
        let (filter, options) = (filter.into(), DeleteOptions::default());
        Action::new(
            M::COLLECTION,
            "find_one_and_delete",
            options,
            move |s, o| async move {
                let filter = self.query(filter, &o.filtered).await?;
                match self.cascade(s, filter, Delete::Returning).await? {
                    Some(Deleted {
                        returned: Some(raw),
                        ..
                    }) => self.open_one(raw).await.map(Some),
                    _ => Ok(None),
                }
            },
        )
    }

    /// A delete, with what the models declare: the delete policies of the
    /// models that reference `M` (by type, see
    /// [`delete_policy`](crate::model::delete_policy)) and the pull of two-sided
    /// links, in a transaction when there is any; `None` when nothing was
    /// deleted.
    async fn cascade(
        &self,
        session: Option<&mut ClientSession>,
        filter: Matching,
        how: Delete,
    ) -> Result<Option<Deleted>> {
        let graph = crate::model::delete_policy::reach_of::<M>()?;
        if !graph.declares_for(M::COLLECTION) {
            return self.delete_opt(session, &filter, how, graph).await;
        }
        if graph.has_dependents(M::COLLECTION) {
            // Before anything is sent (no `listIndexes` in a transaction).
            crate::relation::delete::require_indexes(self.database(), graph, M::COLLECTION).await?;
        }
        let models = [M::NAME];
        txn::transact(
            self.support(),
            &models,
            self.database().client(),
            session,
            self.txn_config(),
            (self, &filter, how),
            |s, (repo, filter, how)| {
                Box::pin(async move { repo.delete_opt(Some(s), filter, *how, graph).await })
            },
        )
        .await
    }

    /// The delete, with what `graph` says the models declare about the
    /// documents it deletes (the policies of their dependents, the pull of
    /// their two-sided links), in the caller's transaction when there is
    /// any of it.
    async fn delete_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        matching: &Matching,
        how: Delete,
        graph: &crate::model::delete_policy::PolicyGraph,
    ) -> Result<Option<Deleted>> {
        let cascades = graph.declares_for(M::COLLECTION);
        let before_delete = |session, ids| {
            crate::relation::delete::before_delete(
                self.database(),
                graph,
                session,
                M::COLLECTION,
                ids,
            )
        };
        let (filter, collation) = (&matching.filter, &matching.collation);
        let deleted = match how {
            Delete::Returning => {
                let coll = self.raw_docs();
                let action = coll.find_one_and_delete(filter.clone());
                let action = collated!(action, collation.clone());
                let found = with_session!(action, session.as_deref_mut())
                    .map_err(|e| self.err(e, "delete from"))?;
                let Some(raw) = found else { return Ok(None) };
                let id = raw
                    .get("_id")
                    .ok()
                    .flatten()
                    .and_then(|id| Bson::try_from(id).ok())
                    .unwrap_or(Bson::Null);
                before_delete(session, vec![id]).await?;
                return Ok(Some(Deleted {
                    count: 1,
                    returned: Some(raw),
                }));
            }
            Delete::ById if !cascades => {
                let coll = self.raw();
                let action = coll.delete_one(filter.clone());
                with_session!(action, session.as_deref_mut())
            }
            Delete::Many if !cascades => {
                let coll = self.raw();
                let action = collated!(coll.delete_many(filter.clone()), collation.clone());
                with_session!(action, session.as_deref_mut())
            }
            Delete::ById => {
                let id = filter.get("_id").cloned().unwrap_or(Bson::Null);
                before_delete(session.as_deref_mut(), vec![id]).await?;
                let coll = self.raw();
                let action = coll.delete_one(filter.clone());
                with_session!(action, session)
            }
            Delete::Many => {
                // In the transaction: the ids first, so that the policies,
                // the pull and the delete touch the same documents.
                let coll = self.raw();
                let find = coll.find(filter.clone()).projection(doc! { "_id": 1 });
                let find = collated!(find, collation.clone());
                let ids: Vec<Bson> = crate::exec::cursor::collect(find, session.as_deref_mut())
                    .await
                    .map_err(|e| self.err(e, "find in"))?
                    .into_iter()
                    .filter_map(|mut d| d.remove("_id"))
                    .collect();
                if ids.is_empty() {
                    return Ok(None);
                }
                before_delete(session.as_deref_mut(), ids.clone()).await?;
                let coll = self.raw();
                let action = coll.delete_many(doc! { "_id": { "$in": ids } });
                with_session!(action, session)
            }
        }
        .map_err(|e| self.err(e, "delete from"))?;
        Ok((deleted.deleted_count > 0).then_some(Deleted {
            count: deleted.deleted_count,
            returned: None,
        }))
    }
}

/// Which delete [`Repo::cascade`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delete {
    /// The document of a `{_id: id}` filter.
    ById,
    /// Every document matching the filter.
    Many,
    /// The first matching document, returned.
    Returning,
}

/// What a delete removed.
struct Deleted {
    count: u64,
    returned: Option<RawDocumentBuf>,
}
