//! The typed repository of one model: insert, get, replace, update, delete,
//! find and count over `mongodb::Collection<M>`.
//!
//! Every method returns an [`Action`]: await it, or give it the caller's
//! `ClientSession` first with [`Action::session`] to compose it into a
//! transaction of the caller's own (see
//! [`run_in_transaction`](crate::txn::run_in_transaction)).
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[document(collection = "posts")]
//! # struct Post {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     title: String,
//! # }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let posts = Repo::<Post>::new(&db);
//! posts.insert(&Post { id: "p1".into(), title: "Hello".into() }).await?;
//! let found = posts.find(Post::FIELDS.title.eq(&"Hello".to_owned())).await?;
//! assert_eq!(found.len(), 1);
//! posts.update(&"p1".to_owned(), Post::FIELDS.title.set("Hi")).await?;
//! # Ok(())
//! # }
//! ```

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use bson::{doc, Bson, Document as BsonDocument, RawDocumentBuf};
use futures_util::TryStreamExt;
use mongodb::{ClientSession, Collection, Database};

use crate::action::Action;
use crate::codec;
use crate::codec::id_to_bson;
use crate::error::{code, Error, Result};
use crate::filter::Filter;
use crate::model::Document;
use crate::model::Relation;
use crate::txn::{self, RetryPolicy, TxnSupport};
use crate::update::Update;

/// Runs a driver action with the session when there is one.
macro_rules! with_session {
    ($action:expr, $session:expr) => {
        match $session {
            Some(s) => $action.session(&mut *s).await,
            None => $action.await,
        }
    };
}
pub(crate) use with_session;

/// The typed repository of model `M` in one database.
pub struct Repo<M: Document> {
    coll: Collection<M>,
    db: Database,
    policy: RetryPolicy,
    support: TxnSupport,
    /// The references whose index [`Repo::require_index`] found on the server.
    indexes_seen: Arc<Mutex<HashSet<IndexKey>>>,
}

impl<M: Document> Clone for Repo<M> {
    fn clone(&self) -> Self {
        Repo {
            coll: self.coll.clone(),
            db: self.db.clone(),
            policy: self.policy.clone(),
            support: self.support.clone(),
            indexes_seen: self.indexes_seen.clone(),
        }
    }
}

impl<M: Document> std::fmt::Debug for Repo<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Repo<{}>({}.{})", M::NAME, self.db.name(), M::COLLECTION)
    }
}

impl<M: Document> Repo<M> {
    /// The repository of `M` in `db` (its collection is `M::COLLECTION`).
    pub fn new(db: &Database) -> Self {
        Repo {
            coll: db.collection(M::COLLECTION),
            db: db.clone(),
            policy: RetryPolicy::default(),
            support: TxnSupport::default(),
            indexes_seen: Arc::default(),
        }
    }

    /// Uses `policy` for the transactions this repository runs itself.
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The typed driver collection, for anything the repository does not cover.
    pub fn collection(&self) -> &Collection<M> {
        &self.coll
    }

    /// The database.
    pub fn database(&self) -> &Database {
        &self.db
    }

    /// The retry policy of the transactions it runs itself.
    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Whether the deployment runs transactions, asked once per repository.
    pub(crate) fn support(&self) -> &TxnSupport {
        &self.support
    }

    /// Fails with [`Error::MissingIndex`] unless the collection has the
    /// index `keys()` of the reference `key` (its stored name and sort key).
    /// Asks the server (`listIndexes`) once per repository and reference;
    /// after that it sends nothing and allocates nothing.
    pub(crate) async fn require_index(
        &self,
        key: IndexKey,
        keys: impl FnOnce() -> BsonDocument,
    ) -> Result<()> {
        if self.seen(&key) {
            return Ok(());
        }
        let keys = keys();
        let listed: std::result::Result<Vec<mongodb::IndexModel>, _> =
            match self.coll.list_indexes().await {
                Ok(cursor) => cursor.try_collect().await,
                Err(e) => Err(e),
            };
        let found = match listed {
            Ok(models) => models
                .iter()
                .any(|m| crate::plan::same_key_order(&m.keys, &keys)),
            // The collection does not exist yet.
            Err(e) if crate::error::DriverErrorExt::code(&e) == Some(code::NAMESPACE_NOT_FOUND) => {
                false
            }
            Err(e) => return Err(self.err(e, "list indexes of")),
        };
        if !found {
            return Err(Error::MissingIndex {
                collection: M::COLLECTION,
                index: crate::index::name_of_key_document(&keys),
            });
        }
        if let Ok(mut seen) = self.indexes_seen.lock() {
            seen.insert(key);
        }
        Ok(())
    }

    fn seen(&self, key: &IndexKey) -> bool {
        self.indexes_seen
            .lock()
            .map(|seen| seen.contains(key))
            .unwrap_or(false)
    }

    /// The same collection with raw documents.
    pub(crate) fn raw(&self) -> Collection<BsonDocument> {
        self.coll.clone_with_type()
    }

    /// The same collection with documents as sent and received: the
    /// repository encodes and decodes them itself (see [`codec`]), to check
    /// sizes before sending and to name the field that does not decode.
    fn raw_docs(&self) -> Collection<RawDocumentBuf> {
        self.coll.clone_with_type()
    }

    /// Inserts one document: one `insert`.
    pub fn insert<'a>(&'a self, doc: &'a M) -> Action<'a, ()> {
        self.action("insert", move |s| self.insert_opt(s, doc))
    }

    async fn insert_opt(&self, session: Option<&mut ClientSession>, doc: &M) -> Result<()> {
        let raw = codec::encode(doc)?;
        with_session!(self.raw_docs().insert_one(raw), session)
            .map_err(|e| self.err(e, "insert into"))?;
        Ok(())
    }

    /// Inserts documents in one `insert` (ordered); none when `docs` is empty.
    pub fn insert_many<'a>(&'a self, docs: &'a [M]) -> Action<'a, ()> {
        self.action("insert_many", move |s| self.insert_many_opt(s, docs))
    }

    async fn insert_many_opt(&self, session: Option<&mut ClientSession>, docs: &[M]) -> Result<()> {
        if docs.is_empty() {
            return Ok(());
        }
        let raws = docs.iter().map(codec::encode).collect::<Result<Vec<_>>>()?;
        with_session!(self.raw_docs().insert_many(raws), session)
            .map_err(|e| self.err(e, "insert into"))?;
        Ok(())
    }

    /// The document with this `_id`: one `find`.
    pub fn get<'a>(&'a self, id: &'a M::Id) -> Action<'a, Option<M>> {
        self.action("get", move |s| async move {
            self.find_one_opt(s, id_filter::<M>(id)?).await
        })
    }

    /// The documents with these `_id`s, in one `find` with `$in` (in no
    /// particular order; missing ids are skipped).
    pub fn get_many<'a>(&'a self, ids: impl IntoIterator<Item = &'a M::Id>) -> Action<'a, Vec<M>> {
        let ids = ids
            .into_iter()
            .map(id_to_bson::<M>)
            .collect::<Result<Vec<Bson>>>();
        self.action("get_many", move |s| async move {
            let ids = ids?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            self.find_opt(s, doc! { "_id": { "$in": ids } }).await
        })
    }

    /// Replaces the stored document that has `doc`'s `_id`: one `update`.
    /// Returns whether it existed.
    pub fn replace<'a>(&'a self, doc: &'a M) -> Action<'a, bool> {
        self.action("replace", move |s| self.replace_opt(s, doc))
    }

    async fn replace_opt(&self, session: Option<&mut ClientSession>, doc: &M) -> Result<bool> {
        let r = with_session!(
            self.raw_docs()
                .replace_one(id_filter::<M>(doc.id())?, codec::encode(doc)?),
            session
        )
        .map_err(|e| self.err(e, "replace in"))?;
        Ok(r.matched_count > 0)
    }

    /// Applies `update` (a typed [`Update`], or a plain update document for
    /// raw access) to the document with this `_id`: one `update`. Returns
    /// whether it existed.
    ///
    /// A [`push`](crate::EmbedField::push) in the update brings its guard:
    /// when an array has no room the update matches nothing, writes nothing
    /// (none of its other parts either), and one more `find` returns
    /// [`Error::EmbedFull`] naming the array; an `Option` array stored as
    /// null is set to `[]` first (one more `update`), as by the bounded
    /// push. The collection's validator still applies to a raw document.
    pub fn update<'a>(&'a self, id: &'a M::Id, update: impl Into<Update<M>>) -> Action<'a, bool> {
        let update = update.into();
        self.action("update", move |s| self.update_opt(s, id, update))
    }

    async fn update_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        id: &M::Id,
        update: Update<M>,
    ) -> Result<bool> {
        let parts = update.into_parts()?;
        let id_bson = id_to_bson::<M>(id)?;
        for push in &parts.pushes {
            if push.too_many() {
                return Err(push.full(M::COLLECTION, &id_bson));
            }
            push.check_size::<M>(&id_bson)?;
        }
        for push in parts.pushes.iter().filter(|p| p.nullable) {
            crate::embed::null_to_empty(self, session.as_deref_mut(), &id_bson, push.path).await?;
        }
        let mut filter = doc! { "_id": id_bson.clone() };
        filter.extend(parts.guard.clone());
        let r = with_session!(
            self.raw().update_one(filter, parts.update.clone()),
            session.as_deref_mut()
        )
        .map_err(|e| self.err(e, "update"))?;
        if r.matched_count > 0 || !parts.has_guard() {
            return Ok(r.matched_count > 0);
        }
        // Full, or no such document: one `find` of the guarded arrays.
        let mut projection = doc! { "_id": 1 };
        for path in parts.guarded_paths() {
            projection.insert(path, 1);
        }
        let stored = with_session!(
            self.raw()
                .find_one(doc! { "_id": id_bson.clone() })
                .projection(projection),
            session
        )
        .map_err(|e| self.err(e, "find in"))?;
        match stored {
            None => Ok(false),
            Some(stored) => Err(parts.full_error(M::COLLECTION, &id_bson, &stored)),
        }
    }

    /// Deletes the document with this `_id`. Returns whether it existed.
    ///
    /// A model with two-sided links (`#[many_to_many(two_sided)]`) also pulls
    /// its id from the inverse array of every document on the other side, in
    /// the same transaction (retried per the repository's policy; refused on
    /// a standalone): in a [`session`](Action::session), the caller's
    /// transaction if one is in progress, else one of its own on that
    /// session. Other models: one `delete`.
    pub fn delete<'a>(&'a self, id: &'a M::Id) -> Action<'a, bool> {
        self.action("delete", move |s| self.delete_cascading(s, id))
    }

    /// One `delete`, or the delete and its cascade in a transaction.
    async fn delete_cascading(
        &self,
        session: Option<&mut ClientSession>,
        id: &M::Id,
    ) -> Result<bool> {
        if inverse_arrays::<M>().is_empty() {
            return self.delete_opt(session, id).await;
        }
        let models = [M::NAME];
        txn::transact(
            &self.support,
            &models,
            self.db.client(),
            session,
            &self.policy,
            (self, id),
            |s, (repo, id)| Box::pin(async move { repo.delete_opt(Some(s), id).await }),
        )
        .await
    }

    /// The delete with its cascade; in a transaction when there is a cascade.
    async fn delete_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        id: &M::Id,
    ) -> Result<bool> {
        let id_bson = id_to_bson::<M>(id)?;
        for (target, inverse) in inverse_arrays::<M>() {
            let other = self.db.collection::<BsonDocument>(target);
            with_session!(
                other.update_many(
                    doc! { inverse: &id_bson },
                    doc! { "$pull": { inverse: &id_bson } }
                ),
                session.as_deref_mut()
            )
            .map_err(|e| Error::from_server(e, "update", target))?;
        }
        let r = with_session!(self.coll.delete_one(doc! { "_id": id_bson }), session)
            .map_err(|e| self.err(e, "delete from"))?;
        Ok(r.deleted_count > 0)
    }

    /// Every document matching `filter` (build it with the typed fields:
    /// `Post::FIELDS.author_id.eq(&id)`). Unbounded: prefer the paged finders
    /// of [`relation`](crate::relation) for children.
    pub fn find(&self, filter: impl Into<Filter<M>>) -> Action<'_, Vec<M>> {
        let filter = filter.into();
        self.action("find", move |s| async move {
            self.find_opt(s, filter.into_document()?).await
        })
    }

    pub(crate) async fn find_opt(
        &self,
        session: Option<&mut ClientSession>,
        filter: BsonDocument,
    ) -> Result<Vec<M>> {
        let raws: Vec<RawDocumentBuf> =
            crate::cursor::collect(self.raw_docs().find(filter), session)
                .await
                .map_err(|e| self.err(e, "find in"))?;
        raws.iter().map(|raw| codec::decode(raw)).collect()
    }

    /// The first document matching `filter`.
    pub fn find_one(&self, filter: impl Into<Filter<M>>) -> Action<'_, Option<M>> {
        let filter = filter.into();
        self.action("find_one", move |s| async move {
            self.find_one_opt(s, filter.into_document()?).await
        })
    }

    async fn find_one_opt(
        &self,
        session: Option<&mut ClientSession>,
        filter: BsonDocument,
    ) -> Result<Option<M>> {
        with_session!(self.raw_docs().find_one(filter), session)
            .map_err(|e| self.err(e, "find in"))?
            .map(|raw| codec::decode(&raw))
            .transpose()
    }

    /// How many documents match `filter`: one `aggregate` (`countDocuments`).
    pub fn count(&self, filter: impl Into<Filter<M>>) -> Action<'_, u64> {
        let filter = filter.into();
        self.action("count", move |s| async move {
            self.count_opt(s, filter.into_document()?).await
        })
    }

    pub(crate) async fn count_opt(
        &self,
        session: Option<&mut ClientSession>,
        filter: BsonDocument,
    ) -> Result<u64> {
        with_session!(self.coll.count_documents(filter), session)
            .map_err(|e| self.err(e, "count in"))
    }

    /// An action of this repository named `operation` (no options).
    pub(crate) fn action<'a, T, F, Fut>(&'a self, operation: &'static str, run: F) -> Action<'a, T>
    where
        F: FnOnce(Option<&'a mut ClientSession>) -> Fut + Send + 'a,
        Fut: std::future::Future<Output = Result<T>> + Send + 'a,
    {
        Action::new(M::COLLECTION, operation, (), move |s, ()| run(s))
    }

    /// Classifies a driver error on this collection.
    pub(crate) fn err(&self, e: mongodb::error::Error, action: &'static str) -> Error {
        Error::from_server(e, action, M::COLLECTION)
    }

    /// [`Error::NotFound`] for this `_id`.
    pub(crate) fn not_found(id: &Bson) -> Error {
        Error::NotFound {
            collection: M::COLLECTION,
            id: crate::error::id_text(id),
        }
    }
}

/// Which index [`Repo::require_index`] checked: a reference's stored name
/// and its sort key.
pub(crate) type IndexKey = (&'static str, Option<&'static str>);

/// `{_id: id}`.
/// `{_id: id}`; an [`Error::Serialize`] naming `_id` when the id has no BSON
/// form (never a filter on null).
pub(crate) fn id_filter<M: Document>(id: &M::Id) -> Result<BsonDocument> {
    Ok(doc! { "_id": id_to_bson::<M>(id)? })
}

/// `(target collection, inverse array)` of every two-sided link of `M`.
fn inverse_arrays<M: Document>() -> Vec<(&'static str, &'static str)> {
    M::relations()
        .into_iter()
        .filter_map(|r| match r {
            Relation::ManyToMany {
                target,
                inverse: Some(inverse),
                ..
            } => Some((target, inverse)),
            _ => None,
        })
        .collect()
}
