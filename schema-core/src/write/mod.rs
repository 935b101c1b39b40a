//! Writes: typed updates of one document (by `_id` or by filter, with
//! upsert) or of many, deletes by `_id` or of many, find-and-modify
//! returning the document before or after, and `insert_many`, ordered or
//! not, naming every document the server refused.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use schema_core::write::ReturnDocument;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[document(collection = "counters")]
//! # struct Counter {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     hits: i64,
//! # }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let counters = Repo::<Counter>::new(&db);
//! let f = Counter::FIELDS;
//! // One update, inserting the counter the first time.
//! let r = counters
//!     .update_one(f.id.eq(&"home".to_owned()), f.hits.inc(&1))
//!     .upsert(true)
//!     .await?;
//! assert_eq!(r.matched + u64::from(r.upserted_id.is_some()), 1);
//! // The counter as it is after the increment.
//! let now = counters
//!     .find_one_and_update(f.id.eq(&"home".to_owned()), f.hits.inc(&1))
//!     .return_document(ReturnDocument::After)
//!     .await?;
//! // Many at once (no index on `hits`: a scan, on purpose).
//! let reset = counters.update_many(f.hits.gt(&1000), f.hits.set(&0)).scan().await?;
//! let gone = counters.delete_many(f.hits.eq(&0)).scan().await?;
//! # Ok(())
//! # }
//! ```
//!
//! **Bounded pushes.** A typed [`Update`] that pushes into an
//! `#[embed(max = N)]` array carries its guard into the filter: the update
//! applies only while the array has room, else [`Error::EmbedFull`] names
//! the document and nothing is written. `update_one` and
//! `find_one_and_update` first read which document the filter picks (one
//! more `find`, only when the update pushes), then update that one under
//! the guard. `update_many` and upserts refuse such an update before
//! sending anything: the documents without room would be skipped silently,
//! and an upsert whose guard fails would insert a second document.
//!
//! **Deletes do what the models declare.** Deleting documents (`delete`,
//! `delete_many`, `find_one_and_delete`) runs the `on_delete` policies that
//! any model declares toward the model, and pulls the ids of the documents
//! deleted from the other side's arrays of `#[many_to_many(two_sided)]`
//! links, in one transaction (see [`Repo::delete`]).
//!
//! **The index guard.** Every filter these helpers send is checked by
//! [`query::check`](crate::query::check) before anything is sent: when no
//! declared index serves it, [`Error::Unindexed`] names the fields and the
//! attribute that would add the index. `.scan()` on the action allows a
//! collection scan on purpose. `_id` lookups are always served. Sent with
//! `.collation(..)`, a write's filter compares strings by that collation,
//! and only an index with the same collation serves it (see
//! [`collation`](crate::model::index::collation)).

use bson::{doc, Bson, Document as BsonDocument, RawDocumentBuf};
use mongodb::error::ErrorKind;
use mongodb::options::Collation;
use mongodb::ClientSession;

pub mod embed;

use crate::error::{id_text, Error, FailedInsert, InsertManyFailure, Result};
use crate::exec::action::Action;
use crate::model::codec::{self, id_to_bson};
use crate::model::index::collation::IndexCollation;
use crate::model::{Document, Updatable};
use crate::repo::Repo;
use crate::txn;
use crate::txn::with_session;
use crate::typed::filter::Filter;
use crate::typed::update::{Update, UpdateParts};

/// What an update of one or many documents did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UpdateResult {
    /// How many documents the filter matched.
    pub matched: u64,
    /// How many of them were changed (an update that sets what is already
    /// stored matches without changing).
    pub modified: u64,
    /// The `_id` of the document an upsert inserted, if it inserted one.
    pub upserted_id: Option<Bson>,
}

/// The options of [`Repo::update_one`] and [`Repo::update_many`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateOptions {
    upsert: bool,
    filtered: Filtered,
}

impl<T> Action<'_, T, UpdateOptions> {
    /// Inserts a document when none matches: the filter's equalities and
    /// the update applied to them (off by default). Refused, before
    /// anything is sent, for an update that pushes into a bounded array.
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "counters")]
    /// # struct Counter { #[serde(rename = "_id")] id: String, hits: i64 }
    /// # async fn demo(counters: Repo<Counter>) -> schema_core::Result<()> {
    /// let f = Counter::FIELDS;
    /// let r = counters.update_one(f.id.eq(&"home".to_owned()), f.hits.inc(&1)).upsert(true).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn upsert(mut self, upsert: bool) -> Self {
        self.options_mut().upsert = upsert;
        self
    }
}

/// Which document [`Repo::find_one_and_update`] returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReturnDocument {
    /// As it was before the update (the default; `None` after an upsert
    /// that inserted it).
    #[default]
    Before,
    /// As the update left it.
    After,
}

/// The options of [`Repo::find_one_and_update`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindOneAndUpdateOptions {
    upsert: bool,
    filtered: Filtered,
    return_document: ReturnDocument,
}

impl<T> Action<'_, T, FindOneAndUpdateOptions> {
    /// Inserts a document when none matches (see
    /// `upsert` of [`update_one`](Repo::update_one)).
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use schema_core::write::ReturnDocument;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "counters")]
    /// # struct Counter { #[serde(rename = "_id")] id: String, hits: i64 }
    /// # async fn demo(counters: Repo<Counter>) -> schema_core::Result<()> {
    /// let f = Counter::FIELDS;
    /// let now: Option<Counter> = counters
    ///     .find_one_and_update(f.id.eq(&"home".to_owned()), f.hits.inc(&1))
    ///     .upsert(true)
    ///     .return_document(ReturnDocument::After)
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn upsert(mut self, upsert: bool) -> Self {
        self.options_mut().upsert = upsert;
        self
    }

    /// Returns the document as it was before the update (the default) or
    /// after it.
    pub fn return_document(mut self, which: ReturnDocument) -> Self {
        self.options_mut().return_document = which;
        self
    }
}

/// The options of [`Repo::update`] (by `_id`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpdateByIdOptions {
    if_version: Option<i64>,
}

impl<T> Action<'_, T, UpdateByIdOptions> {
    /// Applies the update only while the stored version (of a
    /// `#[document(version)]` model) is `version`: otherwise
    /// [`Error::Conflict`], and nothing is written. On a model without a
    /// version it is refused with [`Error::Model`] before anything is sent.
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use schema_core::Error;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "accounts", version)]
    /// # struct Account { #[serde(rename = "_id")] id: String, balance: i64, version: i64 }
    /// # async fn demo(accounts: Repo<Account>) -> schema_core::Result<()> {
    /// let id = "a1".to_owned();
    /// let read = accounts.get(&id).await?.expect("stored");
    /// let f = Account::FIELDS;
    /// let credit = f.balance.set(&(read.balance + 10));
    /// match accounts.update(&id, credit).if_version(read.version).await {
    ///     Ok(_) => {}
    ///     Err(Error::Conflict { .. }) => println!("changed since read: read it again"),
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn if_version(mut self, version: i64) -> Self {
        self.options_mut().if_version = Some(version);
        self
    }
}

/// The options of [`Repo::insert_many`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InsertManyOptions {
    ordered: bool,
}

impl Default for InsertManyOptions {
    fn default() -> Self {
        InsertManyOptions { ordered: true }
    }
}

impl<T> Action<'_, T, InsertManyOptions> {
    /// Ordered (the default), the server stops at the first document it
    /// refuses; unordered, it inserts every other one. Either way
    /// [`Error::InsertMany`] lists the refused documents and the inserted ones.
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use schema_core::Error;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "counters")]
    /// # struct Counter { #[serde(rename = "_id")] id: String, hits: i64 }
    /// # async fn demo(counters: Repo<Counter>, batch: Vec<Counter>) -> schema_core::Result<()> {
    /// match counters.insert_many(&batch).ordered(false).await {
    ///     Ok(()) => {}
    ///     Err(Error::InsertMany(failure)) => {
    ///         for refused in &failure.failed {
    ///             eprintln!("#{} ({}): {}", refused.index, refused.id, refused.reason);
    ///         }
    ///     }
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.options_mut().ordered = ordered;
        self
    }
}

/// The options of [`Repo::delete_many`] and [`Repo::find_one_and_delete`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    filtered: Filtered,
}

/// The options of every write whose filter the index guard checks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Filtered {
    /// `.scan()`: the guard does not check the filter.
    scan: bool,
    /// `.collation(..)`: the filter is sent, and checked, with it.
    collation: Option<IndexCollation>,
}

/// `.scan()` and `.collation(..)` on the actions whose filter the index
/// guard checks.
macro_rules! filter_options {
    ($($options:ty),*) => {$(
        impl<T> Action<'_, T, $options> {
            /// Allows a collection scan on purpose: the index guard does not
            /// check this write's filter (see [`query::check`](crate::query::check)).
            /// Greppable on purpose.
            ///
            /// ```no_run
            /// # use schema_core::prelude::*;
            /// # use serde::{Deserialize, Serialize};
            /// # #[derive(Document, Serialize, Deserialize)]
            /// # #[document(collection = "counters")]
            /// # struct Counter { #[serde(rename = "_id")] id: String, hits: i64 }
            /// # async fn demo(counters: Repo<Counter>) -> schema_core::Result<()> {
            /// // No index on `hits`: without `.scan()`, `Error::Unindexed`.
            /// let gone = counters.delete_many(Counter::FIELDS.hits.eq(&0)).scan().await?;
            /// # Ok(())
            /// # }
            /// ```
            pub fn scan(mut self) -> Self {
                self.options_mut().filtered.scan = true;
                self
            }

            /// Sends the write with `collation`, so that the filter's string
            /// comparisons follow it (`ann@EXAMPLE.org` matches
            /// `Ann@example.org` at strength 2), and an index with the same
            /// collation serves it: the guard counts only on indexes with
            /// this collation, as for [`Find::collation`](crate::query::Find::collation).
            /// Every command of the write that reads the filter (the `find`
            /// of a guarded push or of a cascading delete, the update or
            /// delete itself) carries it.
            ///
            /// ```no_run
            /// # use schema_core::prelude::*;
            /// # use schema_core::collation::IndexCollation;
            /// # use serde::{Deserialize, Serialize};
            /// # #[derive(Document, Serialize, Deserialize)]
            /// # #[document(collection = "members",
            /// #     index(keys(email = asc), unique, collation(locale = "en", strength = 2)))]
            /// # struct Member { #[serde(rename = "_id")] id: String, email: String }
            /// # async fn demo(members: Repo<Member>) -> schema_core::Result<()> {
            /// let gone = members
            ///     .delete_many(Member::FIELDS.email.eq(&"ANN@example.org".to_owned()))
            ///     .collation(IndexCollation::new("en").strength(2))
            ///     .await?;
            /// # Ok(())
            /// # }
            /// ```
            pub fn collation(mut self, collation: IndexCollation) -> Self {
                self.options_mut().filtered.collation = Some(collation);
                self
            }
        }
    )*};
}
filter_options!(UpdateOptions, FindOneAndUpdateOptions, DeleteOptions);

impl<M: Document> Repo<M> {
    /// The filter of a query these writes send, as the document sent: the
    /// one place each of them passes before anything is sent, where the
    /// index guard checks that a declared index serves it
    /// ([`Error::Unindexed`], nothing sent) and that the server has it
    /// ([`Error::MissingIndex`], asked once per index and repository),
    /// unless the action was told `.scan()`.
    async fn query(&self, filter: Filter<M>, options: &Filtered) -> Result<Matching> {
        let filter = filter.into_document()?;
        if !options.scan {
            let collation = options.collation.as_ref();
            let served = crate::query::guard::plan_with::<M>(&filter, None, collation)?;
            self.require_indexes(&served.indexes).await?;
        }
        crate::query::guard::targeting::note::<M>(&filter, "write");
        let collation = options.collation.as_ref().map(IndexCollation::to_driver);
        Ok(Matching { filter, collation })
    }

    /// Inserts documents in one `insert` (split by the driver when they are
    /// many); none when `docs` is empty. Every document is encoded, and
    /// checked against the 16 MiB limit, before anything is sent.
    ///
    /// When the server refuses some of them (a duplicate key, the
    /// validator), [`Error::InsertMany`] names each refused document (index,
    /// `_id`, why) and the documents inserted: ordered (the default; see
    /// `.ordered(false)`), those before
    /// the first refusal; unordered, all the others.
    pub fn insert_many<'a>(&'a self, docs: &'a [M]) -> Action<'a, (), InsertManyOptions> {
        let options = InsertManyOptions::default();
        Action::new(M::COLLECTION, "insert_many", options, move |s, o| {
            self.insert_many_opt(s, docs, o.ordered)
        })
    }

    async fn insert_many_opt(
        &self,
        session: Option<&mut ClientSession>,
        docs: &[M],
        ordered: bool,
    ) -> Result<()> {
        if docs.is_empty() {
            return Ok(());
        }
        let raws = docs
            .iter()
            .map(|doc| codec::encode(doc).and_then(crate::model::stamp::inserted::<M>))
            .collect::<Result<Vec<_>>>()?;
        match with_session!(self.raw_docs().insert_many(raws).ordered(ordered), session) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.insert_many_error(e, docs, ordered)),
        }
    }

    /// [`Error::InsertMany`] when the server refused documents one by one;
    /// any other error as it is classified.
    fn insert_many_error(&self, e: mongodb::error::Error, docs: &[M], ordered: bool) -> Error {
        let write_errors = match e.kind.as_ref() {
            ErrorKind::InsertMany(m) if m.write_concern_error.is_none() => m.write_errors.as_ref(),
            _ => None,
        };
        let Some(write_errors) = write_errors.filter(|w| !w.is_empty()) else {
            return self.err(e, "insert into");
        };
        let mut failed: Vec<FailedInsert> = write_errors
            .iter()
            .map(|w| FailedInsert {
                index: w.index,
                id: docs
                    .get(w.index)
                    .and_then(|d| id_to_bson::<M>(d.id()).ok())
                    .map_or_else(|| "(unknown)".to_owned(), |id| id_text(&id)),
                reason: Error::from_write_error(
                    w.code,
                    w.code_name.as_deref(),
                    &w.message,
                    w.details.as_ref(),
                    M::COLLECTION,
                ),
            })
            .collect();
        failed.sort_by_key(|f| f.index);
        let first = failed.first().map_or(docs.len(), |f| f.index);
        let inserted = (0..docs.len())
            .filter(|i| !failed.iter().any(|f| f.index == *i) && (!ordered || *i < first))
            .collect();
        Error::InsertMany(Box::new(InsertManyFailure {
            collection: M::COLLECTION,
            ordered,
            total: docs.len(),
            inserted,
            failed,
        }))
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
    ///
    /// On a `#[document(version)]` model it increments the version;
    /// `.if_version(v)` applies it only while the stored version is `v`
    /// ([`Error::Conflict`], nothing written, otherwise).
    pub fn update<'a>(
        &'a self,
        id: &'a M::Id,
        update: impl Into<Update<M>>,
    ) -> Action<'a, bool, UpdateByIdOptions>
    where
        M: Updatable,
    {
        let update = update.into();
        let options = UpdateByIdOptions::default();
        Action::new(M::COLLECTION, "update", options, move |s, o| async move {
            let (id, parts) = (id_to_bson::<M>(id)?, update.into_parts()?);
            let r = self
                .update_guarded(s, &id, None, parts, o.if_version)
                .await?;
            Ok(r.matched > 0)
        })
    }

    /// Applies `update` to the first document `filter` matches: one
    /// `update` (and, given `.upsert(true)`, inserts one when none
    /// matches). An update that pushes into a bounded array first reads
    /// which document the filter picks (one `find`), then
    /// updates it under the push's guard ([`Error::EmbedFull`], nothing
    /// written, when it has no room).
    pub fn update_one(
        &self,
        filter: impl Into<Filter<M>>,
        update: impl Into<Update<M>>,
    ) -> Action<'_, UpdateResult, UpdateOptions>
    where
        M: Updatable,
    {
        let (filter, update) = (filter.into(), update.into());
        let options = UpdateOptions::default();
        Action::new(
            M::COLLECTION,
            "update_one",
            options,
            move |s, o| async move {
                let parts = update.into_parts()?;
                refuse_guarded("update_one with upsert", o.upsert, &parts)?;
                let filter = self.query(filter, &o.filtered).await?;
                if !parts.has_guard() {
                    return self.update_plain(s, filter, parts, o.upsert, false).await;
                }
                let mut s = s;
                match self.pick(s.as_deref_mut(), &filter).await? {
                    Some(id) => self.update_guarded(s, &id, Some(filter), parts, None).await,
                    None => Ok(UpdateResult {
                        matched: 0,
                        modified: 0,
                        upserted_id: None,
                    }),
                }
            },
        )
    }

    /// Applies `update` to every document `filter` matches: one `update`
    /// with `multi` (and, given `.upsert(true)`, inserts one when none
    /// matches). An update that pushes into a bounded array is refused with
    /// [`Error::Model`] before anything is sent (the
    /// documents without room would be skipped): push per document with
    /// [`update`](Self::update) or [`update_one`](Self::update_one). So is
    /// an update that writes a field of the model's shard key (a sharded
    /// cluster changes it one document at a time only).
    pub fn update_many(
        &self,
        filter: impl Into<Filter<M>>,
        update: impl Into<Update<M>>,
    ) -> Action<'_, UpdateResult, UpdateOptions> {
        let (filter, update) = (filter.into(), update.into());
        let options = UpdateOptions::default();
        Action::new(
            M::COLLECTION,
            "update_many",
            options,
            move |s, o| async move {
                let parts = update.into_parts()?;
                refuse_guarded("update_many", true, &parts)?;
                refuse_shard_key_change::<M>(&parts)?;
                let filter = self.query(filter, &o.filtered).await?;
                self.update_plain(s, filter, parts, o.upsert, true).await
            },
        )
    }

    /// Applies `update` to the first document `filter` matches and returns
    /// that document, as it was before the update (the default) or after it
    /// (`.return_document(ReturnDocument::After)`):
    /// one `findAndModify`; `None` when none matches (or, returning the
    /// document before, when an upsert inserted it). Bounded pushes as in
    /// [`update_one`](Self::update_one).
    pub fn find_one_and_update(
        &self,
        filter: impl Into<Filter<M>>,
        update: impl Into<Update<M>>,
    ) -> Action<'_, Option<M>, FindOneAndUpdateOptions>
    where
        M: Updatable,
    {
        let (filter, update) = (filter.into(), update.into());
        let options = FindOneAndUpdateOptions::default();
        Action::new(
            M::COLLECTION,
            "find_one_and_update",
            options,
            move |s, o| async move {
                let mut parts = update.into_parts()?;
                refuse_guarded("find_one_and_update with upsert", o.upsert, &parts)?;
                let filter = self.query(filter, &o.filtered).await?;
                crate::model::stamp::updated::<M>(&mut parts.update, o.upsert)?;
                let which = match o.return_document {
                    ReturnDocument::Before => mongodb::options::ReturnDocument::Before,
                    ReturnDocument::After => mongodb::options::ReturnDocument::After,
                };
                if !parts.has_guard() {
                    let coll = self.raw_docs();
                    let action = coll
                        .find_one_and_update(filter.filter, parts.update)
                        .upsert(o.upsert)
                        .return_document(which);
                    let action = collated!(action, filter.collation);
                    let found = with_session!(action, s).map_err(|e| self.err(e, "update"))?;
                    return found.map(|raw| codec::decode(&raw)).transpose();
                }
                let mut s = s;
                let Some(id) = self.pick(s.as_deref_mut(), &filter).await? else {
                    return Ok(None);
                };
                self.prepare_pushes(s.as_deref_mut(), &id, &parts).await?;
                let coll = self.raw_docs();
                let action = coll
                    .find_one_and_update(
                        guarded(&id, Some(&filter.filter), &parts.guard),
                        parts.update.clone(),
                    )
                    .return_document(which);
                let action = collated!(action, filter.collation.clone());
                let found =
                    with_session!(action, s.as_deref_mut()).map_err(|e| self.err(e, "update"))?;
                match found {
                    Some(raw) => codec::decode(&raw).map(Some),
                    None => self
                        .full_or_gone(s, &id, Some(&filter), &parts, None)
                        .await
                        .map(|()| None),
                }
            },
        )
    }

    /// Deletes the document with this `_id`, with what the models declare.
    /// Returns whether it existed.
    ///
    /// The `on_delete` policies that any model declares toward `M` run
    /// first (see [`delete_policy`](crate::model::delete_policy): restrict,
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
                    }) => codec::decode(&raw).map(Some),
                    _ => Ok(None),
                }
            },
        )
    }

    /// The `_id` of the document `filter` picks for a one-document update:
    /// one `find` with `limit: 1`.
    async fn pick(
        &self,
        session: Option<&mut ClientSession>,
        filter: &Matching,
    ) -> Result<Option<Bson>> {
        let coll = self.raw();
        let find = coll
            .find_one(filter.filter.clone())
            .projection(doc! { "_id": 1 });
        let find = collated!(find, filter.collation.clone());
        let found = with_session!(find, session).map_err(|e| self.err(e, "find in"))?;
        Ok(found.and_then(|mut d| d.remove("_id")))
    }

    /// Before an update with bounded pushes: refuses a push that can never
    /// fit or whose items alone exceed 16 MiB (nothing sent), and sets an
    /// `Option` array stored as null to `[]`.
    async fn prepare_pushes(
        &self,
        mut session: Option<&mut ClientSession>,
        id: &Bson,
        parts: &UpdateParts,
    ) -> Result<()> {
        for push in &parts.pushes {
            if push.too_many() {
                return Err(push.full(M::COLLECTION, id));
            }
            push.check_size::<M>(id)?;
        }
        for push in parts.pushes.iter().filter(|p| p.nullable) {
            crate::write::embed::null_to_empty(self, session.as_deref_mut(), id, push.path).await?;
        }
        Ok(())
    }

    /// The update of the document `id` (that also matches `also`, and is at
    /// version `expected` when given) under the guards of its bounded
    /// pushes, with the version and timestamps the model keeps.
    async fn update_guarded(
        &self,
        mut session: Option<&mut ClientSession>,
        id: &Bson,
        also: Option<Matching>,
        mut parts: UpdateParts,
        expected: Option<i64>,
    ) -> Result<UpdateResult> {
        let version = match (expected, M::VERSION) {
            (Some(v), Some((name, _))) => Some((name, v)),
            (Some(_), None) => {
                return Err(Error::Model(format!(
                    "`if_version` needs a version: `{}` has no `#[document(version)]`; nothing was sent",
                    M::NAME
                )))
            }
            (None, _) => None,
        };
        crate::model::stamp::updated::<M>(&mut parts.update, false)?;
        self.prepare_pushes(session.as_deref_mut(), id, &parts)
            .await?;
        let mut filter = guarded(id, also.as_ref().map(|a| &a.filter), &parts.guard);
        if let Some((name, v)) = version {
            filter.insert(name, v);
        }
        let coll = self.raw();
        let action = coll.update_one(filter, std::mem::take(&mut parts.update));
        let action = collated!(action, also.as_ref().and_then(|a| a.collation.clone()));
        let r = with_session!(action, session.as_deref_mut()).map_err(|e| self.err(e, "update"))?;
        if r.matched_count == 0 && (parts.has_guard() || version.is_some()) {
            self.full_or_gone(session, id, also.as_ref(), &parts, version)
                .await?;
        }
        Ok(result(r))
    }

    /// An update with no bounded push (so no guard) of the first document
    /// `filter` matches, or of every one (`many`), with the version and
    /// timestamps the model keeps.
    async fn update_plain(
        &self,
        session: Option<&mut ClientSession>,
        filter: Matching,
        mut parts: UpdateParts,
        upsert: bool,
        many: bool,
    ) -> Result<UpdateResult> {
        crate::model::stamp::updated::<M>(&mut parts.update, upsert)?;
        let coll = self.raw();
        let action = if many {
            coll.update_many(filter.filter, parts.update)
        } else {
            coll.update_one(filter.filter, parts.update)
        };
        let action = collated!(action, filter.collation);
        let r = with_session!(action.upsert(upsert), session).map_err(|e| self.err(e, "update"))?;
        Ok(result(r))
    }

    /// After a guarded update matched nothing (one `find` of the version
    /// and the guarded arrays): [`Error::Conflict`] when the document is at
    /// another version than `version`'s, [`Error::EmbedFull`] when it is
    /// there and the update pushes, `Ok` when it is gone (or no longer
    /// matches `also`).
    async fn full_or_gone(
        &self,
        session: Option<&mut ClientSession>,
        id: &Bson,
        also: Option<&Matching>,
        parts: &UpdateParts,
        version: Option<(&'static str, i64)>,
    ) -> Result<()> {
        let mut projection = doc! { "_id": 1 };
        for path in parts.guarded_paths() {
            projection.insert(path, 1);
        }
        if let Some((name, _)) = version {
            projection.insert(name, 1);
        }
        let coll = self.raw();
        let find = coll
            .find_one(guarded(id, also.map(|a| &a.filter), &BsonDocument::new()))
            .projection(projection);
        let find = collated!(find, also.and_then(|a| a.collation.clone()));
        let stored = with_session!(find, session).map_err(|e| self.err(e, "find in"))?;
        let Some(stored) = stored else {
            return Ok(());
        };
        if let Some((name, expected)) = version {
            let at = match stored.get(name) {
                Some(Bson::Int32(n)) => Some(i64::from(*n)),
                Some(Bson::Int64(n)) => Some(*n),
                _ => None,
            };
            if at != Some(expected) {
                return Err(self.conflict(id, expected));
            }
        }
        if parts.has_guard() {
            return Err(parts.full_error(M::COLLECTION, id, &stored));
        }
        Ok(())
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

/// The filter of a write as sent, with the collation its commands carry.
struct Matching {
    filter: BsonDocument,
    collation: Option<Collation>,
}

impl Matching {
    /// `filter` compared without a collation (an `_id`).
    fn exactly(filter: BsonDocument) -> Self {
        Matching {
            filter,
            collation: None,
        }
    }
}

/// `$action` with the collation, when there is one.
macro_rules! collated {
    ($action:expr, $collation:expr) => {
        match $collation {
            Some(collation) => $action.collation(collation),
            None => $action,
        }
    };
}
use collated;

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

/// `{_id: id}`, with `also` and `guard` (the conditions of an update's
/// bounded pushes).
fn guarded(id: &Bson, also: Option<&BsonDocument>, guard: &BsonDocument) -> BsonDocument {
    let mut filter = doc! { "_id": id.clone() };
    let mut rest: Vec<Bson> = Vec::new();
    if let Some(also) = also.filter(|a| !a.is_empty()) {
        rest.push(Bson::Document(also.clone()));
    }
    // The guard's keys (`tags.9`, `$expr`) cannot clash with `_id`.
    filter.extend(guard.clone());
    if !rest.is_empty() {
        filter.insert("$and", rest);
    }
    filter
}

/// Refuses an update that pushes into a bounded array where its guard
/// cannot hold (`refuse`), naming the array: nothing is sent.
fn refuse_guarded(what: &str, refuse: bool, parts: &UpdateParts) -> Result<()> {
    match parts.guarded_paths().next() {
        Some(path) if refuse => Err(Error::Model(format!(
            "{what} cannot push into the bounded array `{path}`: the guard that keeps it within \
             its max holds for one existing document; push with `update` or `update_one` (no \
             upsert); nothing was sent"
        ))),
        _ => Ok(()),
    }
}

/// Refuses a multi-document update that writes a field of the model's
/// shard key, naming it: a sharded cluster changes a shard key's value one
/// document at a time only. Nothing is sent.
fn refuse_shard_key_change<M: Document>(parts: &UpdateParts) -> Result<()> {
    match M::SHARD_KEY.and_then(|key| key.written_by(&parts.update)) {
        Some(field) => Err(Error::Model(format!(
            "update_many cannot write `{field}`, a field of `{}`'s shard key: a sharded cluster \
             changes a shard key's value one document at a time only (`update`, `update_one` \
             or `replace`); nothing was sent",
            M::NAME
        ))),
        None => Ok(()),
    }
}

fn result(r: mongodb::results::UpdateResult) -> UpdateResult {
    UpdateResult {
        matched: r.matched_count,
        modified: r.modified_count,
        upserted_id: r.upserted_id,
    }
}
