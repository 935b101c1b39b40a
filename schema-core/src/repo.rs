//! The typed repository of one model: insert, get, replace, update, delete,
//! find and count over `mongodb::Collection<M>`.
//!
//! Every method returns an [`Action`]: await it, or give it the caller's
//! `ClientSession` first with [`Action::session`] to compose it into a
//! transaction of the caller's own (see
//! [`transaction`](crate::txn::transaction)).
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
//! let found = posts.get(&"p1".to_owned()).await?;
//! assert!(found.is_some());
//! posts.update(&"p1".to_owned(), Post::FIELDS.title.set("Hi")).await?;
//! # Ok(())
//! # }
//! ```

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use bson::{doc, Bson, Document as BsonDocument, RawDocumentBuf};
use mongodb::{ClientSession, Collection, Database};

use crate::error::{Error, Result};
use crate::exec::action::Action;
use crate::model::codec;
use crate::model::codec::id_to_bson;
use crate::model::Document;
use crate::txn::{with_session, RetryPolicy, TxnConfig, TxnState};
use mongodb::options::TransactionOptions;

/// The typed repository of model `M` in one database.
pub struct Repo<M: Document> {
    coll: Collection<M>,
    db: Database,
    txn: TxnConfig,
    support: TxnState,
    /// The indexes the server was found to have (see `query::server_indexes`).
    indexes_seen: Arc<Seen>,
    /// Whether reads by `_id` write back the documents they upgrade (see
    /// [`write_back_upgrades`](Self::write_back_upgrades)).
    pub(crate) write_back: bool,
    /// The encryption handle of its encrypted fields, if given (see
    /// `with_encryption`).
    pub(crate) keys: crate::crypt::Keys,
}

impl<M: Document> Clone for Repo<M> {
    fn clone(&self) -> Self {
        Repo {
            coll: self.coll.clone(),
            db: self.db.clone(),
            txn: self.txn.clone(),
            support: self.support.clone(),
            indexes_seen: self.indexes_seen.clone(),
            write_back: self.write_back,
            keys: self.keys.clone(),
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
            txn: TxnConfig::default(),
            support: TxnState::default(),
            indexes_seen: Arc::default(),
            write_back: false,
            keys: crate::crypt::Keys::default(),
        }
    }

    /// Encrypts and decrypts `M`'s `#[encrypt(...)]` fields with `crypt`
    /// (the `encryption` feature): every write encrypts them, every read
    /// decrypts them, and a typed equality on a deterministic one encrypts
    /// its operand. A repository of a model with encrypted fields and no
    /// handle refuses to write, read or filter them
    /// ([`Error::Encryption`]); it never sends them in plain text.
    #[cfg(feature = "encryption")]
    pub fn with_encryption(mut self, crypt: crate::crypt::Encryption) -> Self {
        self.keys = crate::crypt::Keys::new(crypt);
        self
    }

    /// Uses `policy` for the transactions this repository runs itself.
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.txn.policy = policy;
        self
    }

    /// Starts the transactions it runs itself with `options`, which win
    /// field by field over [`helper_options`](crate::txn::helper_options)
    /// (`{ w: "majority", j: true }`): e.g. `w: 1`, a `wtimeout`, a read
    /// concern or `maxCommitTimeMS`. A transaction of the caller's that it
    /// joins keeps the caller's options.
    pub fn with_transaction_options(mut self, options: TransactionOptions) -> Self {
        self.txn.options = Some(options);
        self
    }

    /// The options the transactions it runs itself start with: those given
    /// to [`with_transaction_options`](Self::with_transaction_options), and
    /// `{ w: "majority", j: true }` where they set no write concern.
    pub fn transaction_options(&self) -> TransactionOptions {
        self.txn.options()
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
        &self.txn.policy
    }

    /// How its own transactions retry and start.
    pub(crate) fn txn_config(&self) -> &TxnConfig {
        &self.txn
    }

    /// How many times the transactions this repository ran itself (a
    /// cascading delete, a subset push) were retried after a transient error
    /// (a whole body or a commit run again), counted since it was made and
    /// shared with its clones. Transactions of other repositories and links
    /// count in their own.
    pub fn retries(&self) -> u64 {
        self.support.retries()
    }

    /// Whether the deployment runs transactions (asked once per repository),
    /// and the retry count.
    pub(crate) fn support(&self) -> &TxnState {
        &self.support
    }

    /// The indexes this repository (and its clones) found on the server.
    pub(crate) fn seen(&self) -> &Seen {
        &self.indexes_seen
    }

    /// The same, shared: for a stream that outlives the call.
    pub(crate) fn seen_shared(&self) -> Arc<Seen> {
        self.indexes_seen.clone()
    }

    /// The same collection with raw documents.
    pub(crate) fn raw(&self) -> Collection<BsonDocument> {
        self.coll.clone_with_type()
    }

    /// The same collection with documents as sent and received: the
    /// repository encodes and decodes them itself (see [`codec`]), to check
    /// sizes before sending and to name the field that does not decode.
    pub(crate) fn raw_docs(&self) -> Collection<RawDocumentBuf> {
        self.coll.clone_with_type()
    }

    /// Inserts one document: one `insert`.
    pub fn insert<'a>(&'a self, doc: &'a M) -> Action<'a, ()> {
        self.action("insert", move |s| self.insert_opt(s, doc))
    }

    async fn insert_opt(&self, session: Option<&mut ClientSession>, doc: &M) -> Result<()> {
        let raw = crate::model::stamp::inserted::<M>(codec::encode(doc)?)?;
        let raw = self.keys.seal::<M>(raw).await?;
        with_session!(self.raw_docs().insert_one(raw), session)
            .map_err(|e| self.err(e, "insert into"))?;
        Ok(())
    }

    /// The document with this `_id`: one `find`.
    pub fn get<'a>(&'a self, id: &'a M::Id) -> Action<'a, Option<M>> {
        self.action("get", move |s| async move {
            self.note_by_id("get");
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
    ///
    /// A model with a shard key (other than `_id` alone) adds the key's
    /// values from `doc` to the filter, so that on a cluster the replace
    /// goes to one shard. When that matches nothing (the document is
    /// missing, or `doc` changes its shard key's values), a second
    /// `update` by `_id` alone follows, as for any other model.
    ///
    /// A `#[document(version)]` model replaces only the stored document
    /// whose version is `doc`'s, and stores that version plus one: when
    /// another writer changed it since it was read, nothing is written and
    /// [`Error::Conflict`] names the version expected (one more `find` tells
    /// a conflict from a missing document). A `#[document(timestamps)]`
    /// model's `updated_at` is set to now.
    pub fn replace<'a>(&'a self, doc: &'a M) -> Action<'a, bool>
    where
        M: crate::model::Replaceable,
    {
        self.action("replace", move |s| self.replace_opt(s, doc))
    }

    async fn replace_opt(&self, mut session: Option<&mut ClientSession>, doc: &M) -> Result<bool> {
        let id = id_to_bson::<M>(doc.id())?;
        let (raw, expected) = crate::model::stamp::replaced(doc, codec::encode(doc)?)?;
        let raw = self.keys.seal::<M>(raw).await?;
        let mut filter = doc! { "_id": id.clone() };
        if let Some((name, version)) = &expected {
            filter.insert(*name, version.clone());
        }
        // On a cluster the shard key's values, read from the document,
        // send the replace to one shard (see `shard_targeted`).
        if let Some(targeted) = shard_targeted::<M>(&filter, &raw) {
            let r = with_session!(
                self.raw_docs().replace_one(targeted, &raw),
                session.as_deref_mut()
            )
            .map_err(|e| self.err(e, "replace in"))?;
            if r.matched_count > 0 {
                return Ok(true);
            }
        }
        let r = with_session!(
            self.raw_docs().replace_one(filter, raw),
            session.as_deref_mut()
        )
        .map_err(|e| self.err(e, "replace in"))?;
        if r.matched_count > 0 {
            return Ok(true);
        }
        match (expected, doc.version()) {
            (Some(_), Some(version)) if self.exists(session, &id).await? => {
                Err(self.conflict(&id, version))
            }
            _ => Ok(false),
        }
    }

    /// The `WARN` event (with the `tracing` feature) of a helper that finds
    /// its document by `_id` alone, on a model sharded on another key: a
    /// broadcast to every shard of a cluster.
    pub(crate) fn note_by_id(&self, operation: &'static str) {
        if let Some(key) = M::SHARD_KEY.filter(|k| k.fields.first() != Some(&"_id")) {
            crate::model::shard::warn_broadcast(M::COLLECTION, operation, &key);
        }
    }

    /// Whether a document has this `_id`: one `find` of its `_id` alone.
    pub(crate) async fn exists(
        &self,
        session: Option<&mut ClientSession>,
        id: &Bson,
    ) -> Result<bool> {
        let coll = self.raw();
        let find = coll
            .find_one(doc! { "_id": id.clone() })
            .projection(doc! { "_id": 1 });
        let found = with_session!(find, session).map_err(|e| self.err(e, "find in"))?;
        Ok(found.is_some())
    }

    /// [`Error::Conflict`]: the document `id` is no longer at `expected`.
    pub(crate) fn conflict(&self, id: &Bson, expected: i64) -> Error {
        Error::Conflict {
            model: M::NAME,
            collection: M::COLLECTION,
            id: crate::error::id_text(id),
            expected,
        }
    }

    pub(crate) async fn find_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        filter: BsonDocument,
    ) -> Result<Vec<M>> {
        let raws: Vec<RawDocumentBuf> =
            crate::exec::cursor::collect(self.raw_docs().find(filter), session.as_deref_mut())
                .await
                .map_err(|e| self.err(e, "find in"))?;
        self.read_back(session, raws).await
    }

    async fn find_one_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        filter: BsonDocument,
    ) -> Result<Option<M>> {
        let found = with_session!(self.raw_docs().find_one(filter), session.as_deref_mut())
            .map_err(|e| self.err(e, "find in"))?;
        Ok(self
            .read_back(session, found.into_iter().collect())
            .await?
            .pop())
    }

    pub(crate) async fn count_opt(
        &self,
        session: Option<&mut ClientSession>,
        filter: BsonDocument,
        collation: Option<mongodb::options::Collation>,
        error: impl FnOnce(mongodb::error::Error) -> Error,
    ) -> Result<u64> {
        let count = self.coll.count_documents(filter);
        let count = match collation {
            Some(collation) => count.collation(collation),
            None => count,
        };
        with_session!(count, session).map_err(error)
    }

    /// A stored document read as `M`, its encrypted fields decrypted first
    /// (see `crypt`).
    pub(crate) async fn open_one(&self, raw: RawDocumentBuf) -> Result<M> {
        self.open_as::<M>(raw).await
    }

    /// A stored document of any model `T` (a joined parent, say) read with
    /// this repository's handle, its encrypted fields decrypted first.
    pub(crate) async fn open_as<T: Document>(&self, raw: RawDocumentBuf) -> Result<T> {
        let raw = self.keys.unseal::<T>(raw).await?;
        codec::decode(&raw).map_err(crate::crypt::redact::<T>)
    }

    /// Stored documents with their encrypted fields decrypted (see `crypt`).
    pub(crate) async fn unseal_all(
        &self,
        raws: Vec<RawDocumentBuf>,
    ) -> Result<Vec<RawDocumentBuf>> {
        if !crate::model::cache::may_be_sealed::<M>() {
            return Ok(raws);
        }
        let mut open = Vec::with_capacity(raws.len());
        for raw in raws {
            open.push(self.keys.unseal::<M>(raw).await?);
        }
        Ok(open)
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

/// The indexes a repository (and its clones) found on the server: a
/// reference's by stored name and sort key (a few, compared in turn: no
/// allocation nor hashing to look one up),
/// the others by key pattern name (`status_1_views_-1`).
#[derive(Debug, Default)]
pub(crate) struct Seen(Mutex<(Vec<IndexKey>, HashSet<String>)>);

impl Seen {
    fn with<T: Default>(&self, f: impl FnOnce(&mut (Vec<IndexKey>, HashSet<String>)) -> T) -> T {
        self.0
            .lock()
            .map(|mut sets| f(&mut sets))
            .unwrap_or_default()
    }

    pub(crate) fn has_reference(&self, key: &IndexKey) -> bool {
        self.with(|(refs, _)| refs.contains(key))
    }

    pub(crate) fn add_reference(&self, key: IndexKey) {
        self.with(|(refs, _)| {
            if !refs.contains(&key) {
                refs.push(key);
            }
        });
    }

    pub(crate) fn has_pattern(&self, name: &str) -> bool {
        self.with(|(_, patterns)| patterns.contains(name))
    }

    pub(crate) fn add_patterns(&self, names: impl IntoIterator<Item = String>) {
        self.with(|(_, patterns)| patterns.extend(names));
    }

    /// Forgets every index seen: each is asked about again.
    pub(crate) fn forget(&self) {
        self.with(|(refs, patterns)| {
            refs.clear();
            patterns.clear();
        });
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

/// `filter` (an `_id` filter) with the equality of each of `M`'s shard key
/// fields to its value in `doc` (the document being written), or `None`
/// when `M` has no shard key beyond `_id`, or `doc` lacks one of its
/// fields. A mongos sends such a write to the one shard that holds it.
pub(crate) fn shard_targeted<M: Document>(
    filter: &BsonDocument,
    doc: &bson::RawDocument,
) -> Option<BsonDocument> {
    let key = M::SHARD_KEY?;
    if key.fields == ["_id"] {
        return None;
    }
    let mut targeted = filter.clone();
    for field in key.fields {
        if *field == "_id" {
            continue;
        }
        let value = doc.get(field).ok()??;
        targeted.insert(*field, Bson::try_from(value).ok()?);
    }
    Some(targeted)
}
