//! The options of the write actions (`.upsert(..)`, `.scan()`,
//! `.collation(..)`, ...) and what an update returns.

use bson::Bson;

use crate::exec::action::Action;
use crate::model::index::collation::IndexCollation;

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

/// The options of [`Repo::update_one`](crate::Repo::update_one) and [`Repo::update_many`](crate::Repo::update_many).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateOptions {
    pub(super) upsert: bool,
    pub(super) filtered: Filtered,
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

/// Which document [`Repo::find_one_and_update`](crate::Repo::find_one_and_update) returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReturnDocument {
    /// As it was before the update (the default; `None` after an upsert
    /// that inserted it).
    #[default]
    Before,
    /// As the update left it.
    After,
}

/// The options of [`Repo::find_one_and_update`](crate::Repo::find_one_and_update).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindOneAndUpdateOptions {
    pub(super) upsert: bool,
    pub(super) filtered: Filtered,
    pub(super) return_document: ReturnDocument,
}

impl<T> Action<'_, T, FindOneAndUpdateOptions> {
    /// Inserts a document when none matches (see
    /// `upsert` of [`update_one`](crate::Repo::update_one)).
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use schema_core::ReturnDocument;
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

/// The options of [`Repo::update`](crate::Repo::update) (by `_id`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpdateByIdOptions {
    pub(super) if_version: Option<i64>,
}

impl<T> Action<'_, T, UpdateByIdOptions> {
    /// Applies the update only while the stored version (of a
    /// `#[document(version)]` model) is `version`: otherwise
    /// [`Error::Conflict`](crate::Error::Conflict), and nothing is written. On a model without a
    /// version it is refused with [`Error::Model`](crate::Error::Model) before anything is sent.
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

/// The options of [`Repo::insert_many`](crate::Repo::insert_many).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InsertManyOptions {
    pub(super) ordered: bool,
}

impl Default for InsertManyOptions {
    fn default() -> Self {
        InsertManyOptions { ordered: true }
    }
}

impl<T> Action<'_, T, InsertManyOptions> {
    /// Ordered (the default), the server stops at the first document it
    /// refuses; unordered, it inserts every other one. Either way
    /// [`Error::InsertMany`](crate::Error::InsertMany) lists the refused documents and the inserted ones.
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

/// The options of [`Repo::delete_many`](crate::Repo::delete_many) and [`Repo::find_one_and_delete`](crate::Repo::find_one_and_delete).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    pub(super) filtered: Filtered,
}

/// The options of every write whose filter the index guard checks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Filtered {
    /// `.scan()`: the guard does not check the filter.
    pub(super) scan: bool,
    /// `.collation(..)`: the filter is sent, and checked, with it.
    pub(super) collation: Option<IndexCollation>,
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
            /// # use schema_core::IndexCollation;
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
