//! Writes to `#[embed(max = N)]` arrays that keep the bound under any
//! concurrency.
//!
//! A bounded push is one `update` whose filter only matches while the array
//! has room: `{_id: id, "tags.9": {$exists: false}}` for `max = 10` (the
//! tenth item, at index 9, is absent). The server evaluates the filter and
//! applies the `$push` atomically on the one document, so concurrent pushers
//! can never take it past `max`; the one that finds it full gets
//! [`Error::EmbedFull`] and the document is unchanged.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use schema_core::Error;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[document(collection = "posts")]
//! # struct Post {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     #[embed(max = 10)]
//! #     tags: Vec<String>,
//! # }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let posts = Repo::<Post>::new(&db);
//! let tags = posts.embed(Post::FIELDS.tags);
//! match tags.push(&"p1".to_owned(), &"rust".to_owned()).await {
//!     Ok(()) => {}
//!     Err(Error::EmbedFull { max, .. }) => println!("at most {max} tags"),
//!     Err(e) => return Err(e),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! A set (`BTreeSet`, `HashSet`) keeps set semantics on the server: its push
//! is an `$addToSet` whose filter counts only the items the set does not hold
//! yet (`$expr`: stored size + size of `$setDifference(items, stored)` <=
//! `max`), so pushing an item already held stores no duplicate, does not
//! count against `max`, and succeeds without changing anything, even when
//! the set is full.
//!
//! Items that alone would take the document past 16 MiB (one huge item, or
//! items adding up to more) are refused with [`Error::TooLarge`] before
//! anything is sent, by the same check as an insert.
//!
//! The subset pattern (`#[embed(max = 10, keep = "newest", history = Comment)]`):
//! [`Embed::push_keeping`] pushes with `{$each: [item], $slice: -10}` so the
//! parent keeps the newest ten, and inserts the full record into the history
//! collection, both in one transaction.

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::ClientSession;
use serde::Serialize;

use crate::error::{id_text, Error, Result};
use crate::exec::action::Action;
pub use crate::model::bounded::EmbedArray;
use crate::model::codec::{self, id_to_bson, value_to_bson};
use crate::model::Document;
use crate::repo::{id_filter, Repo};
use crate::txn;
use crate::txn::with_session;
use crate::typed::field::{EmbedField, Keep};
use crate::typed::push::{check_push_size, BoundedPush};

impl<M, C: EmbedArray, P> EmbedField<M, C, P> {
    /// Whether the field is a set (`BTreeSet`, `HashSet`), pushed with
    /// `$addToSet`. Read from the field's type, so an alias of a set is one.
    ///
    /// ```
    /// use std::collections::BTreeSet;
    /// use schema_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// type Labels = BTreeSet<String>;
    ///
    /// #[derive(Document, Serialize, Deserialize)]
    /// #[document(collection = "boards")]
    /// struct Board {
    ///     #[serde(rename = "_id")]
    ///     id: String,
    ///     #[embed(max = 10)]
    ///     labels: Labels,
    ///     #[embed(max = 10)]
    ///     notes: Vec<String>,
    /// }
    ///
    /// assert!(Board::FIELDS.labels.is_set());
    /// assert!(!Board::FIELDS.notes.is_set());
    /// ```
    pub const fn is_set(&self) -> bool {
        C::SET
    }
}

impl<M: Document> Repo<M> {
    /// The bounded-array helpers for one `#[embed(max = N)]` field.
    ///
    /// Not for an array inside an array of sub-documents, whose guard could
    /// not name one item's array (it does not compile).
    // The bound on tagged enums' variants stands apart, so the lines
    // the messages quote for the other two stay as they were.
    #[allow(clippy::multiple_bound_locations)]
    pub fn embed<C, P: crate::typed::path::OutsideArrays + crate::typed::path::OutsideBuckets<M>>(
        &self,
        field: EmbedField<M, C, P>,
    ) -> Embed<'_, M, C>
    where
        M: crate::model::Updatable,
        P: crate::typed::path::OutsideVariants,
    {
        Embed {
            repo: self,
            field: field.erase(),
        }
    }
}

/// Bounded writes to one embedded array of `M` (see the module docs).
pub struct Embed<'r, M: Document, C> {
    repo: &'r Repo<M>,
    field: EmbedField<M, C>,
}

impl<M: Document, C> Clone for Embed<'_, M, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M: Document, C> Copy for Embed<'_, M, C> {}

impl<'r, M: Document, C> Embed<'r, M, C>
where
    C: EmbedArray + 'r,
    C::Item: Serialize + Sync,
{
    /// An action of this field named `operation`. It holds a copy of the
    /// helper, so it may outlive the `Embed` value it came from.
    fn action<'a, T, F, Fut>(&self, operation: &'static str, run: F) -> Action<'a, T>
    where
        'r: 'a,
        F: FnOnce(Embed<'r, M, C>, Option<&'a mut ClientSession>) -> Fut + Send + 'a,
        Fut: std::future::Future<Output = Result<T>> + Send + 'a,
    {
        let this = *self;
        Action::new(M::COLLECTION, operation, (), move |s, ()| run(this, s))
    }

    /// Appends `item` if the array holds fewer than `max` items: one `update`
    /// (an `Option` field sends one more first, turning a stored null into `[]`).
    /// Fails with [`Error::EmbedFull`] (document unchanged) or
    /// [`Error::NotFound`] (one more `find` tells which).
    ///
    /// On a set, an item already held is a success that changes nothing,
    /// even when the set is full. An item over 16 MiB as BSON is refused
    /// with [`Error::TooLarge`] before anything is sent.
    pub fn push<'a>(&self, id: &'a M::Id, item: &'a C::Item) -> Action<'a, ()>
    where
        'r: 'a,
    {
        self.action("push", move |this, s| async move {
            this.push_each(s, id, vec![this.item(item)?]).await
        })
    }

    /// Appends all of `items` or none: one `update` whose filter matches only
    /// while the array has room for every one of them. An empty `items`
    /// sends nothing. On a set, room is needed only for the distinct items
    /// it does not hold yet. Items adding up to more than 16 MiB as BSON are
    /// refused with [`Error::TooLarge`] before anything is sent.
    pub fn push_many<'a>(&self, id: &'a M::Id, items: &'a [C::Item]) -> Action<'a, ()>
    where
        'r: 'a,
    {
        self.action("push_many", move |this, s| async move {
            this.push_each(s, id, this.items(items)?).await
        })
    }

    /// An item of the array as BSON ([`Error::Serialize`] naming the field
    /// when it has no BSON form).
    fn item(&self, item: &C::Item) -> Result<Bson> {
        value_to_bson(item, M::NAME, self.field.name())
    }

    fn items(&self, items: &[C::Item]) -> Result<Vec<Bson>> {
        items.iter().map(|item| self.item(item)).collect()
    }

    async fn push_each(
        &self,
        mut session: Option<&mut ClientSession>,
        id: &M::Id,
        items: Vec<Bson>,
    ) -> Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        let name = self.field.name();
        let id_bson = id_to_bson::<M>(id)?;
        let push = BoundedPush::new(&self.field, items).map_err(|e| self.serialize(e))?;
        if push.too_many() {
            return Err(self.full(&id_bson));
        }
        push.check_size::<M>(&id_bson)?;
        self.null_to_empty(session.as_deref_mut(), &id_bson).await?;
        let (guard, operator, value) = push.guarded();
        let mut filter = doc! { "_id": id_bson.clone() };
        filter.extend(guard);
        let mut update = doc! { operator: { name: value } };
        crate::model::stamp::updated::<M>(&mut update, false)?;
        let update = self.repo.keys.seal_update::<M>(update).await?;
        let r = with_session!(
            self.repo.raw().update_one(filter, update),
            session.as_deref_mut()
        )
        .map_err(|e| self.repo.err(e, "push into"))?;
        if r.matched_count > 0 {
            return Ok(());
        }
        Err(self.full_or_missing(session, &id_bson).await)
    }

    fn check_size(&self, id: &Bson, items: &Bson) -> Result<()> {
        check_push_size::<M>(id, self.field.name(), items)
    }

    fn serialize(&self, source: bson::error::Error) -> Error {
        codec::field_error(M::NAME, self.field.name(), source)
    }

    /// Removes every item equal to `item`: one `update`. Fails with
    /// [`Error::NotFound`] when no document has this `_id`.
    pub fn pull<'a>(&self, id: &'a M::Id, item: &'a C::Item) -> Action<'a, ()>
    where
        'r: 'a,
    {
        self.action("pull", move |this, s| async move {
            this.pull_opt(s, id, this.item(item)?).await
        })
    }

    /// Removes every item matching `condition` (a `$pull` condition such as
    /// `{"n": {"$lt": 5}}`, or `{"$in": [...]}`): one `update`.
    pub fn pull_where<'a>(&self, id: &'a M::Id, condition: BsonDocument) -> Action<'a, ()>
    where
        'r: 'a,
    {
        self.action("pull_where", move |this, s| async move {
            this.pull_opt(s, id, Bson::Document(condition)).await
        })
    }

    async fn pull_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        id: &M::Id,
        condition: Bson,
    ) -> Result<()> {
        let name = self.field.name();
        let mut filter = id_filter::<M>(id)?;
        if C::NULLABLE {
            // `$pull` refuses a null field; a null one holds nothing to pull.
            filter.insert(name, doc! { "$ne": Bson::Null });
        }
        let mut update = doc! { "$pull": { name: condition } };
        crate::model::stamp::updated::<M>(&mut update, false)?;
        let update = self.repo.keys.seal_update::<M>(update).await?;
        let r = with_session!(
            self.repo.raw().update_one(filter, update),
            session.as_deref_mut()
        )
        .map_err(|e| self.repo.err(e, "pull from"))?;
        if r.matched_count == 0 {
            let id = id_to_bson::<M>(id)?;
            if C::NULLABLE && self.exists(session, &id).await? {
                return Ok(());
            }
            return Err(Repo::<M>::not_found(&id));
        }
        Ok(())
    }

    /// For a field that may be stored as null: sets a null one to `[]`,
    /// since `$push` refuses a null field (one `update`; nothing otherwise).
    async fn null_to_empty(&self, session: Option<&mut ClientSession>, id: &Bson) -> Result<()> {
        if !C::NULLABLE {
            return Ok(());
        }
        null_to_empty(self.repo, session, id, self.field.name()).await
    }

    async fn exists(&self, session: Option<&mut ClientSession>, id: &Bson) -> Result<bool> {
        let raw = self.repo.raw();
        with_session!(
            raw.find_one(doc! { "_id": id.clone() })
                .projection(doc! { "_id": 1 }),
            session
        )
        .map(|found| found.is_some())
        .map_err(|e| self.repo.err(e, "find in"))
    }

    /// The subset pattern: pushes `item` keeping only the newest `max` items
    /// (`$push` with `$each` and `$slice: -max`; with `keep = "oldest"`,
    /// `$slice: max` keeps the first ones), and inserts `history` (the full
    /// record) into the history collection, both in one transaction retried
    /// per the repository's policy: `update`, `insert`, `commitTransaction`.
    ///
    /// `H` must be the field's `history = ...` model when it names one.
    /// Fails with [`Error::NotFound`] (nothing written) when the parent is
    /// missing, and with [`Error::TooLarge`] (nothing sent) when the item or
    /// the record is over 16 MiB as BSON. A set that already holds `item`
    /// is left as it is; the record is still inserted.
    ///
    /// In a [`session`](Action::session), it joins the caller's transaction
    /// if one is in progress, else runs its own on that session.
    pub fn push_keeping<'a, H: Document>(
        &self,
        id: &'a M::Id,
        item: &'a C::Item,
        history: &'a H,
    ) -> Action<'a, ()>
    where
        'r: 'a,
    {
        self.action("push_keeping", move |this, s| async move {
            this.push_keeping_opt(s, id, item, history).await
        })
    }

    async fn push_keeping_opt<H: Document>(
        &self,
        session: Option<&mut ClientSession>,
        id: &M::Id,
        item: &C::Item,
        history: &H,
    ) -> Result<()> {
        self.check_history::<H>()?;
        let id = id_to_bson::<M>(id)?;
        let item = self.item(item)?;
        // Both size checks before the transaction starts: nothing is sent.
        self.check_size(&id, &Bson::Array(vec![item.clone()]))?;
        let record = crate::model::stamp::inserted::<H>(crate::model::codec::encode(history)?)?;
        let record = self.repo.keys.seal::<H>(record).await?;
        let models = [M::NAME];
        txn::transact(
            self.repo.support(),
            &models,
            self.repo.database().client(),
            session,
            self.repo.txn_config(),
            (self, &id, &item, (&record, H::COLLECTION)),
            |s, (this, id, item, history)| {
                Box::pin(async move { this.push_keeping_body(s, id, item, *history).await })
            },
        )
        .await
    }

    async fn push_keeping_body(
        &self,
        session: &mut ClientSession,
        id_bson: &Bson,
        item: &Bson,
        (record, history): (&bson::RawDocumentBuf, &'static str),
    ) -> Result<()> {
        let name = self.field.name();
        let max = i64::from(self.field.max());
        let slice = match self.field.keep() {
            Some(Keep::Oldest) => max,
            Some(Keep::Newest) | None => -max,
        };
        self.null_to_empty(Some(&mut *session), id_bson).await?;
        let mut filter = doc! { "_id": id_bson.clone() };
        if C::SET {
            // A set that holds the item already is left as it is.
            filter.insert(name, doc! { "$ne": item.clone() });
        }
        let mut update = doc! { "$push": { name: { "$each": [item.clone()], "$slice": slice } } };
        crate::model::stamp::updated::<M>(&mut update, false)?;
        let update = self.repo.keys.seal_update::<M>(update).await?;
        let r = self
            .repo
            .raw()
            .update_one(filter, update)
            .session(&mut *session)
            .await
            .map_err(|e| self.repo.err(e, "push into"))?;
        if r.matched_count == 0 && !(C::SET && self.exists(Some(&mut *session), id_bson).await?) {
            return Err(Repo::<M>::not_found(id_bson));
        }
        self.repo
            .database()
            .collection::<bson::RawDocumentBuf>(history)
            .insert_one(record)
            .session(session)
            .await
            .map_err(|e| Error::from_server(e, "insert into", history))?;
        Ok(())
    }

    fn check_history<H: Document>(&self) -> Result<()> {
        match self.field.history_collection() {
            Some(expected) if expected != H::COLLECTION => Err(Error::Model(format!(
                "`{}.{}` keeps its history in `{expected}`, not in `{}` (`{}`)",
                M::COLLECTION,
                self.field.name(),
                H::COLLECTION,
                H::NAME
            ))),
            _ => Ok(()),
        }
    }

    /// After a push matched nothing: full, or no such document? One `find`.
    async fn full_or_missing(&self, session: Option<&mut ClientSession>, id: &Bson) -> Error {
        let raw = self.repo.raw();
        let found = with_session!(
            raw.find_one(doc! { "_id": id.clone() })
                .projection(doc! { "_id": 1 }),
            session
        );
        match found {
            Ok(Some(_)) => self.full(id),
            Ok(None) => Repo::<M>::not_found(id),
            Err(e) => self.repo.err(e, "find in"),
        }
    }

    fn full(&self, id: &Bson) -> Error {
        Error::EmbedFull {
            collection: M::COLLECTION,
            id: id_text(id),
            field: self.field.name(),
            max: self.field.max(),
        }
    }
}

/// Sets the array at `path` of document `id` to `[]` when it is stored as
/// null (`$push` refuses a null field): one `update`.
pub(crate) async fn null_to_empty<M: Document>(
    repo: &Repo<M>,
    session: Option<&mut ClientSession>,
    id: &Bson,
    path: &str,
) -> Result<()> {
    with_session!(
        repo.raw().update_one(
            doc! { "_id": id.clone(), path: { "$type": "null" } },
            doc! { "$set": { path: [] } }
        ),
        session
    )
    .map_err(|e| repo.err(e, "push into"))?;
    Ok(())
}
