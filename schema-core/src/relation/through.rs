//! Many-to-many with no natural bound on either side: one edge document per
//! pair, in a collection of its own, indexed in both directions.
//!
//! An edge is `{_id: ObjectId, <left>: L's _id, <right>: R's _id}`. Setup
//! creates the collection with a validator and two indexes: a unique
//! `{left: 1, right: 1}` (one edge per pair; it also serves "the rights of a
//! left") and `{right: 1, left: 1}` ("the lefts of a right"). Both listings
//! page by keyset on the other id and read the index alone (a covered
//! `PROJECTION_COVERED > IXSCAN`, no document fetched).
//!
//! Every write is one single-document command, so nothing here needs a
//! transaction: `link` is an idempotent upsert, `unlink` one `delete`.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use schema_core::relation::Through;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[document(collection = "users")]
//! # struct User { #[serde(rename = "_id")] id: String }
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[document(collection = "groups")]
//! # struct Group { #[serde(rename = "_id")] id: String }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let members = Through::<User, Group>::new(&db, "memberships", "userId", "groupId");
//! let mut schema = Schema::new().with::<User>().with::<Group>();
//! schema.push(members.model_info());
//! schema.sync(&db).await?;
//! members.link(&"u1".to_owned(), &"g1".to_owned()).await?;
//! let groups: Vec<String> = members.rights_of(&"u1".to_owned(), None, 50).await?;
//! # Ok(())
//! # }
//! ```

use std::marker::PhantomData;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::options::Hint;
use mongodb::{ClientSession, Collection, Database};
use serde::de::DeserializeOwned;

use crate::codec::id_to_bson;
use crate::error::code;
use crate::error::{Error, Result};
use crate::index::{Direction, IndexOrigin, IndexSpec};
use crate::model::Document;
use crate::repo::with_session;
use crate::schema::ModelInfo;

/// An edge collection between `L` and `R` (see the module docs).
pub struct Through<L: Document, R: Document> {
    coll: Collection<BsonDocument>,
    collection: &'static str,
    left: &'static str,
    right: &'static str,
    _models: PhantomData<fn() -> (L, R)>,
}

impl<L: Document, R: Document> Clone for Through<L, R> {
    fn clone(&self) -> Self {
        Through {
            coll: self.coll.clone(),
            collection: self.collection,
            left: self.left,
            right: self.right,
            _models: PhantomData,
        }
    }
}

impl<L: Document, R: Document> Through<L, R> {
    /// Edges stored in `collection`, each holding `L`'s id under `left` and
    /// `R`'s id under `right`.
    pub fn new(
        db: &Database,
        collection: &'static str,
        left: &'static str,
        right: &'static str,
    ) -> Self {
        Through {
            coll: db.collection(collection),
            collection,
            left,
            right,
            _models: PhantomData,
        }
    }

    /// The edge collection's name.
    pub fn collection_name(&self) -> &'static str {
        self.collection
    }

    /// The two indexes: unique `{left: 1, right: 1}` and `{right: 1, left: 1}`.
    pub fn indexes(&self) -> Vec<IndexSpec> {
        let mut forward = IndexSpec::new(
            vec![
                (self.left.to_owned(), Direction::Asc),
                (self.right.to_owned(), Direction::Asc),
            ],
            IndexOrigin::Declared,
        );
        forward.unique = true;
        let backward = IndexSpec::new(
            vec![
                (self.right.to_owned(), Direction::Asc),
                (self.left.to_owned(), Direction::Asc),
            ],
            IndexOrigin::Declared,
        );
        vec![forward, backward]
    }

    /// The edge collection as a model for setup: register it with
    /// [`Schema::push`](crate::Schema::push) so that `sync` creates it, its
    /// validator (both ids required, no other field) and both indexes.
    pub fn model_info(&self) -> ModelInfo {
        ModelInfo {
            name: self.collection,
            collection: self.collection,
            validator: doc! { "$jsonSchema": {
                "bsonType": "object",
                "required": [self.left, self.right],
                "properties": { "_id": {}, self.left: {}, self.right: {} },
                "additionalProperties": false,
            } },
            indexes: self.indexes(),
            needs_transactions: false,
        }
    }

    fn pair(&self, left: &L::Id, right: &R::Id) -> Result<BsonDocument> {
        Ok(doc! { self.left: id_to_bson::<L>(left)?, self.right: id_to_bson::<R>(right)? })
    }

    fn err(&self, e: mongodb::error::Error, action: &'static str) -> Error {
        Error::from_server(e, action, self.collection)
    }

    /// Records the edge: one `update` with `upsert` (linking an existing
    /// edge changes nothing).
    pub async fn link(&self, left: &L::Id, right: &R::Id) -> Result<()> {
        self.link_opt(None, left, right).await
    }

    /// [`link`](Self::link) in the caller's session.
    pub async fn link_in(
        &self,
        session: &mut ClientSession,
        left: &L::Id,
        right: &R::Id,
    ) -> Result<()> {
        self.link_opt(Some(session), left, right).await
    }

    async fn link_opt(
        &self,
        session: Option<&mut ClientSession>,
        left: &L::Id,
        right: &R::Id,
    ) -> Result<()> {
        let pair = self.pair(left, right)?;
        let r = with_session!(
            self.coll
                .update_one(pair.clone(), doc! { "$setOnInsert": pair })
                .upsert(true),
            session
        );
        match r {
            Ok(_) => Ok(()),
            // Two concurrent upserts of the same pair: the other one inserted it.
            Err(e) if crate::error::DriverErrorExt::code(&e) == Some(code::DUPLICATE_KEY) => Ok(()),
            Err(e) => Err(self.err(e, "link in")),
        }
    }

    /// Removes the edge: one `delete`. Returns whether it existed.
    pub async fn unlink(&self, left: &L::Id, right: &R::Id) -> Result<bool> {
        self.unlink_opt(None, left, right).await
    }

    /// [`unlink`](Self::unlink) in the caller's session.
    pub async fn unlink_in(
        &self,
        session: &mut ClientSession,
        left: &L::Id,
        right: &R::Id,
    ) -> Result<bool> {
        self.unlink_opt(Some(session), left, right).await
    }

    async fn unlink_opt(
        &self,
        session: Option<&mut ClientSession>,
        left: &L::Id,
        right: &R::Id,
    ) -> Result<bool> {
        let r = with_session!(self.coll.delete_one(self.pair(left, right)?), session)
            .map_err(|e| self.err(e, "unlink in"))?;
        Ok(r.deleted_count > 0)
    }

    /// Whether the edge exists: one covered `find`.
    pub async fn contains(&self, left: &L::Id, right: &R::Id) -> Result<bool> {
        let found = self
            .coll
            .find_one(self.pair(left, right)?)
            .projection(doc! { "_id": 0, self.left: 1 })
            .await
            .map_err(|e| self.err(e, "find in"))?;
        Ok(found.is_some())
    }

    /// Up to `limit` ids of the rights linked to `left`, in id order, after
    /// `after` (keyset; `None` for the first page): one covered `find` on
    /// `{left: 1, right: 1}`.
    pub async fn rights_of(
        &self,
        left: &L::Id,
        after: Option<&R::Id>,
        limit: u32,
    ) -> Result<Vec<R::Id>> {
        self.other_ids(
            None,
            (self.left, self.right),
            id_to_bson::<L>(left)?,
            after.map(id_to_bson::<R>).transpose()?,
            limit,
        )
        .await
    }

    /// [`rights_of`](Self::rights_of) in the caller's session.
    pub async fn rights_of_in(
        &self,
        session: &mut ClientSession,
        left: &L::Id,
        after: Option<&R::Id>,
        limit: u32,
    ) -> Result<Vec<R::Id>> {
        self.other_ids(
            Some(session),
            (self.left, self.right),
            id_to_bson::<L>(left)?,
            after.map(id_to_bson::<R>).transpose()?,
            limit,
        )
        .await
    }

    /// Up to `limit` ids of the lefts linked to `right`, after `after`: one
    /// covered `find` on `{right: 1, left: 1}`.
    pub async fn lefts_of(
        &self,
        right: &R::Id,
        after: Option<&L::Id>,
        limit: u32,
    ) -> Result<Vec<L::Id>> {
        self.other_ids(
            None,
            (self.right, self.left),
            id_to_bson::<R>(right)?,
            after.map(id_to_bson::<L>).transpose()?,
            limit,
        )
        .await
    }

    /// [`lefts_of`](Self::lefts_of) in the caller's session.
    pub async fn lefts_of_in(
        &self,
        session: &mut ClientSession,
        right: &R::Id,
        after: Option<&L::Id>,
        limit: u32,
    ) -> Result<Vec<L::Id>> {
        self.other_ids(
            Some(session),
            (self.right, self.left),
            id_to_bson::<R>(right)?,
            after.map(id_to_bson::<L>).transpose()?,
            limit,
        )
        .await
    }

    /// The `find` of one listing: `(key, other)` are the index's two fields.
    pub fn listing_shape(
        &self,
        (key, other): (&'static str, &'static str),
        id: Bson,
        after: Option<Bson>,
        limit: u32,
    ) -> crate::explain::FindShape {
        let mut filter = doc! { key: id };
        if let Some(after) = after {
            filter.insert(other, doc! { "$gt": after });
        }
        crate::explain::FindShape {
            filter,
            sort: Some(doc! { other: 1 }),
            limit: Some(i64::from(limit.max(1))),
            projection: Some(doc! { "_id": 0, other: 1 }),
            hint: Some(Bson::Document(doc! { key: 1, other: 1 })),
        }
    }

    async fn other_ids<T: DeserializeOwned>(
        &self,
        session: Option<&mut ClientSession>,
        keys: (&'static str, &'static str),
        id: Bson,
        after: Option<Bson>,
        limit: u32,
    ) -> Result<Vec<T>> {
        let (key, other) = keys;
        let shape = self.listing_shape(keys, id, after, limit);
        let action = self
            .coll
            .find(shape.filter)
            .sort(doc! { other: 1 })
            .limit(i64::from(limit.max(1)))
            .batch_size(limit.max(1))
            .projection(doc! { "_id": 0, other: 1 })
            .hint(Hint::Keys(doc! { key: 1, other: 1 }));
        let docs = crate::cursor::collect(action, session)
            .await
            .map_err(|e| self.err(e, "list edges of"))?;
        docs.into_iter()
            .map(|mut d| {
                let value = d.remove(other).unwrap_or(Bson::Null);
                bson::from_bson(value).map_err(|e| Error::Deserialize {
                    model: "edge id",
                    source: Box::new(e),
                })
            })
            .collect()
    }

    /// How many rights `left` is linked to: one `countDocuments` (a count scan).
    pub async fn count_rights(&self, left: &L::Id) -> Result<u64> {
        self.coll
            .count_documents(doc! { self.left: id_to_bson::<L>(left)? })
            .await
            .map_err(|e| self.err(e, "count in"))
    }

    /// How many lefts `right` is linked to.
    pub async fn count_lefts(&self, right: &R::Id) -> Result<u64> {
        self.coll
            .count_documents(doc! { self.right: id_to_bson::<R>(right)? })
            .await
            .map_err(|e| self.err(e, "count in"))
    }

    /// Removes every edge of `left` (when deleting it): one `delete`.
    pub async fn remove_left(&self, left: &L::Id) -> Result<u64> {
        self.remove_opt(None, doc! { self.left: id_to_bson::<L>(left)? })
            .await
    }

    /// [`remove_left`](Self::remove_left) in the caller's session, e.g. in
    /// the transaction that deletes the left document.
    pub async fn remove_left_in(&self, session: &mut ClientSession, left: &L::Id) -> Result<u64> {
        self.remove_opt(Some(session), doc! { self.left: id_to_bson::<L>(left)? })
            .await
    }

    /// Removes every edge of `right`: one `delete`.
    pub async fn remove_right(&self, right: &R::Id) -> Result<u64> {
        self.remove_opt(None, doc! { self.right: id_to_bson::<R>(right)? })
            .await
    }

    /// [`remove_right`](Self::remove_right) in the caller's session.
    pub async fn remove_right_in(&self, session: &mut ClientSession, right: &R::Id) -> Result<u64> {
        self.remove_opt(Some(session), doc! { self.right: id_to_bson::<R>(right)? })
            .await
    }

    async fn remove_opt(
        &self,
        session: Option<&mut ClientSession>,
        filter: BsonDocument,
    ) -> Result<u64> {
        let r = with_session!(self.coll.delete_many(filter), session)
            .map_err(|e| self.err(e, "unlink in"))?;
        Ok(r.deleted_count)
    }

    /// What the server does for [`rights_of`](Self::rights_of): `explain`
    /// with `executionStats`.
    pub async fn explain_rights_of(
        &self,
        db: &Database,
        left: &L::Id,
        limit: u32,
    ) -> Result<crate::explain::PlanSummary> {
        let shape =
            self.listing_shape((self.left, self.right), id_to_bson::<L>(left)?, None, limit);
        crate::explain::explain_find(db, self.collection, &shape).await
    }
}
