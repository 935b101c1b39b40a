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
//! The subset pattern (`#[embed(max = 10, keep = "newest", history = Comment)]`):
//! [`Embed::push_keeping`] pushes with `{$each: [item], $slice: -10}` so the
//! parent keeps the newest ten, and inserts the full record into the history
//! collection, both in one transaction.

use std::collections::{BTreeSet, VecDeque};

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::ClientSession;
use serde::Serialize;

use crate::bounded::BoundedCollection;
use crate::error::{id_text, Error, Result};
use crate::field::{to_bson, EmbedField, Keep};
use crate::model::Document;
use crate::repo::{id_filter, with_session, Repo};
use crate::txn;

/// An array type whose items keep their order and may repeat, so `$push`
/// and `$slice` mean what they say (`Vec`, `VecDeque`, `BTreeSet` stored as
/// an array, and `Option`/`Box` of them).
pub trait EmbedArray: BoundedCollection {
    /// Whether the field may be stored as null (`Option` without
    /// `skip_serializing_if`): `$push` and `$pull` refuse a null field, so
    /// the helpers treat null as an empty array.
    const NULLABLE: bool = false;
}
impl<T> EmbedArray for Vec<T> {}
impl<T> EmbedArray for VecDeque<T> {}
impl<T> EmbedArray for BTreeSet<T> {}
impl<C: EmbedArray> EmbedArray for Option<C> {
    const NULLABLE: bool = true;
}
impl<C: EmbedArray> EmbedArray for Box<C> {
    const NULLABLE: bool = C::NULLABLE;
}

impl<M: Document> Repo<M> {
    /// The bounded-array helpers for one `#[embed(max = N)]` field.
    pub fn embed<C>(&self, field: EmbedField<M, C>) -> Embed<'_, M, C> {
        Embed { repo: self, field }
    }
}

/// Bounded writes to one embedded array of `M` (see the module docs).
pub struct Embed<'r, M: Document, C> {
    repo: &'r Repo<M>,
    field: EmbedField<M, C>,
}

impl<M: Document, C> Embed<'_, M, C>
where
    C: EmbedArray,
    C::Item: Serialize + Sync,
{
    /// Appends `item` if the array holds fewer than `max` items: one `update`
    /// (an `Option` field sends one more first, turning a stored null into `[]`).
    /// Fails with [`Error::EmbedFull`] (document unchanged) or
    /// [`Error::NotFound`] (one more `find` tells which).
    pub async fn push(&self, id: &M::Id, item: &C::Item) -> Result<()> {
        self.push_each(None, id, vec![to_bson(item)]).await
    }

    /// [`push`](Self::push) in the caller's session.
    pub async fn push_in(
        &self,
        session: &mut ClientSession,
        id: &M::Id,
        item: &C::Item,
    ) -> Result<()> {
        self.push_each(Some(session), id, vec![to_bson(item)]).await
    }

    /// Appends all of `items` or none: one `update` whose filter matches only
    /// while the array has room for every one of them. An empty `items`
    /// sends nothing.
    pub async fn push_many(&self, id: &M::Id, items: &[C::Item]) -> Result<()> {
        self.push_each(None, id, items.iter().map(to_bson).collect())
            .await
    }

    /// [`push_many`](Self::push_many) in the caller's session.
    pub async fn push_many_in(
        &self,
        session: &mut ClientSession,
        id: &M::Id,
        items: &[C::Item],
    ) -> Result<()> {
        self.push_each(Some(session), id, items.iter().map(to_bson).collect())
            .await
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
        let max = self.field.max();
        let id_bson = to_bson(id);
        let count = u32::try_from(items.len()).unwrap_or(u32::MAX);
        if count > max {
            return Err(self.full(&id_bson));
        }
        self.null_to_empty(session.as_deref_mut(), &id_bson).await?;
        // Room for `count` more: the item at index `max - count` is absent.
        let mut filter = doc! { "_id": id_bson.clone() };
        filter.insert(format!("{name}.{}", max - count), doc! { "$exists": false });
        let push = if items.len() == 1 {
            items.into_iter().next().unwrap_or(Bson::Null)
        } else {
            Bson::Document(doc! { "$each": items })
        };
        let r = with_session!(
            self.repo
                .raw()
                .update_one(filter, doc! { "$push": { name: push } }),
            session.as_deref_mut()
        )
        .map_err(|e| self.repo.err(e, "push into"))?;
        if r.matched_count > 0 {
            return Ok(());
        }
        Err(self.full_or_missing(session, &id_bson).await)
    }

    /// Removes every item equal to `item`: one `update`. Fails with
    /// [`Error::NotFound`] when no document has this `_id`.
    pub async fn pull(&self, id: &M::Id, item: &C::Item) -> Result<()> {
        self.pull_opt(None, id, to_bson(item)).await
    }

    /// [`pull`](Self::pull) in the caller's session.
    pub async fn pull_in(
        &self,
        session: &mut ClientSession,
        id: &M::Id,
        item: &C::Item,
    ) -> Result<()> {
        self.pull_opt(Some(session), id, to_bson(item)).await
    }

    /// Removes every item matching `condition` (a `$pull` condition such as
    /// `{"n": {"$lt": 5}}`, or `{"$in": [...]}`): one `update`.
    pub async fn pull_where(&self, id: &M::Id, condition: BsonDocument) -> Result<()> {
        self.pull_opt(None, id, Bson::Document(condition)).await
    }

    /// [`pull_where`](Self::pull_where) in the caller's session.
    pub async fn pull_where_in(
        &self,
        session: &mut ClientSession,
        id: &M::Id,
        condition: BsonDocument,
    ) -> Result<()> {
        self.pull_opt(Some(session), id, Bson::Document(condition))
            .await
    }

    async fn pull_opt(
        &self,
        mut session: Option<&mut ClientSession>,
        id: &M::Id,
        condition: Bson,
    ) -> Result<()> {
        let name = self.field.name();
        let mut filter = id_filter::<M>(id);
        if C::NULLABLE {
            // `$pull` refuses a null field; a null one holds nothing to pull.
            filter.insert(name, doc! { "$ne": Bson::Null });
        }
        let r = with_session!(
            self.repo
                .raw()
                .update_one(filter, doc! { "$pull": { name: condition } }),
            session.as_deref_mut()
        )
        .map_err(|e| self.repo.err(e, "pull from"))?;
        if r.matched_count == 0 {
            let id = to_bson(id);
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
        let name = self.field.name();
        with_session!(
            self.repo.raw().update_one(
                doc! { "_id": id.clone(), name: { "$type": "null" } },
                doc! { "$set": { name: [] } }
            ),
            session
        )
        .map_err(|e| self.repo.err(e, "push into"))?;
        Ok(())
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
    /// Fails with [`Error::NotFound`] (nothing written) when the parent is missing.
    pub async fn push_keeping<H: Document>(
        &self,
        id: &M::Id,
        item: &C::Item,
        history: &H,
    ) -> Result<()> {
        self.push_keeping_opt(None, id, item, history).await
    }

    /// [`push_keeping`](Self::push_keeping) in the caller's session: joins
    /// the caller's transaction if one is in progress, else runs its own.
    pub async fn push_keeping_in<H: Document>(
        &self,
        session: &mut ClientSession,
        id: &M::Id,
        item: &C::Item,
        history: &H,
    ) -> Result<()> {
        self.push_keeping_opt(Some(session), id, item, history)
            .await
    }

    async fn push_keeping_opt<H: Document>(
        &self,
        session: Option<&mut ClientSession>,
        id: &M::Id,
        item: &C::Item,
        history: &H,
    ) -> Result<()> {
        self.check_history::<H>()?;
        let models = [M::NAME];
        txn::transact(
            self.repo.support(),
            &models,
            self.repo.database().client(),
            session,
            self.repo.retry_policy(),
            (self, id, item, history),
            |s, (this, id, item, history)| {
                Box::pin(async move { this.push_keeping_body(s, id, item, *history).await })
            },
        )
        .await
    }

    async fn push_keeping_body<H: Document>(
        &self,
        session: &mut ClientSession,
        id: &M::Id,
        item: &C::Item,
        history: &H,
    ) -> Result<()> {
        let name = self.field.name();
        let max = i64::from(self.field.max());
        let slice = match self.field.keep() {
            Some(Keep::Oldest) => max,
            Some(Keep::Newest) | None => -max,
        };
        self.null_to_empty(Some(&mut *session), &to_bson(id))
            .await?;
        let r = self
            .repo
            .raw()
            .update_one(
                id_filter::<M>(id),
                doc! { "$push": { name: { "$each": [to_bson(item)], "$slice": slice } } },
            )
            .session(&mut *session)
            .await
            .map_err(|e| self.repo.err(e, "push into"))?;
        if r.matched_count == 0 {
            return Err(Repo::<M>::not_found(&to_bson(id)));
        }
        self.repo
            .database()
            .collection::<bson::RawDocumentBuf>(H::COLLECTION)
            .insert_one(crate::codec::encode(history)?)
            .session(session)
            .await
            .map_err(|e| Error::from_server(e, "insert into", H::COLLECTION))?;
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
