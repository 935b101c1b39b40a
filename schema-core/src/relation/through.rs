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
//! # use schema_core::Schema;
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
//! schema = schema.with_info(members.model_info());
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

use crate::error::code;
use crate::error::{Error, Result};
use crate::exec::action::Action;
use crate::model::codec::id_to_bson;
use crate::model::index::{Direction, IndexOrigin, IndexSpec};
use crate::model::Document;
use crate::setup::schema::ModelInfo;
use crate::txn::with_session;

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
    /// [`Schema::with_info`](crate::Schema::with_info) so that `sync` creates it, its
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
            timeseries: None,
            on_delete: Vec::new(),
            relations: Vec::new(),
            copies: Vec::new(),
            shard_key: None,
            versions: None,
            pre_images: false,
            encrypted: Vec::new(),
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
    pub fn link<'a>(&'a self, left: &'a L::Id, right: &'a R::Id) -> Action<'a, ()> {
        self.action("link", move |s| self.link_opt(s, left, right))
    }

    /// An action on the edge collection named `operation`.
    fn action<'a, T, F, Fut>(&'a self, operation: &'static str, run: F) -> Action<'a, T>
    where
        F: FnOnce(Option<&'a mut ClientSession>) -> Fut + Send + 'a,
        Fut: std::future::Future<Output = Result<T>> + Send + 'a,
    {
        Action::new(self.collection, operation, (), move |s, ()| run(s))
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
    pub fn unlink<'a>(&'a self, left: &'a L::Id, right: &'a R::Id) -> Action<'a, bool> {
        self.action("unlink", move |s| self.unlink_opt(s, left, right))
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
    pub fn contains<'a>(&'a self, left: &'a L::Id, right: &'a R::Id) -> Action<'a, bool> {
        self.action("contains", move |s| async move {
            let find = self
                .coll
                .find_one(self.pair(left, right)?)
                .projection(doc! { "_id": 0, self.left: 1 });
            let found = with_session!(find, s).map_err(|e| self.err(e, "find in"))?;
            Ok(found.is_some())
        })
    }

    /// Up to `limit` ids of the rights linked to `left`, in id order, after
    /// `after` (keyset; `None` for the first page): one covered `find` on
    /// `{left: 1, right: 1}`.
    pub fn rights_of<'a>(
        &'a self,
        left: &'a L::Id,
        after: Option<&'a R::Id>,
        limit: u32,
    ) -> Action<'a, Vec<R::Id>> {
        self.action("rights_of", move |s| async move {
            let (id, after) = (
                id_to_bson::<L>(left)?,
                after.map(id_to_bson::<R>).transpose()?,
            );
            self.other_ids(s, (self.left, self.right), id, after, limit)
                .await
        })
    }

    /// Up to `limit` ids of the lefts linked to `right`, after `after`: one
    /// covered `find` on `{right: 1, left: 1}`.
    pub fn lefts_of<'a>(
        &'a self,
        right: &'a R::Id,
        after: Option<&'a L::Id>,
        limit: u32,
    ) -> Action<'a, Vec<L::Id>> {
        self.action("lefts_of", move |s| async move {
            let (id, after) = (
                id_to_bson::<R>(right)?,
                after.map(id_to_bson::<L>).transpose()?,
            );
            self.other_ids(s, (self.right, self.left), id, after, limit)
                .await
        })
    }

    /// The `find` of one listing: `(key, other)` are the index's two fields.
    pub fn listing_shape(
        &self,
        (key, other): (&'static str, &'static str),
        id: Bson,
        after: Option<Bson>,
        limit: u32,
    ) -> crate::query::explain::FindShape {
        let mut filter = doc! { key: id };
        if let Some(after) = after {
            filter.insert(other, doc! { "$gt": after });
        }
        crate::query::explain::FindShape {
            filter,
            sort: Some(doc! { other: 1 }),
            limit: Some(i64::from(limit.max(1))),
            projection: Some(doc! { "_id": 0, other: 1 }),
            hint: Some(Bson::Document(doc! { key: 1, other: 1 })),
            collation: None,
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
        let docs = crate::exec::cursor::collect(action, session)
            .await
            .map_err(|e| self.err(e, "list edges of"))?;
        docs.into_iter()
            .map(|mut d| {
                let value = d.remove(other).unwrap_or(Bson::Null);
                bson::deserialize_from_bson(value).map_err(|e| Error::Deserialize {
                    model: "edge id",
                    source: Box::new(e),
                })
            })
            .collect()
    }

    /// How many rights `left` is linked to: one `countDocuments` (a count scan).
    pub fn count_rights<'a>(&'a self, left: &'a L::Id) -> Action<'a, u64> {
        self.action("count_rights", move |s| async move {
            self.count_opt(s, doc! { self.left: id_to_bson::<L>(left)? })
                .await
        })
    }

    /// How many lefts `right` is linked to.
    pub fn count_lefts<'a>(&'a self, right: &'a R::Id) -> Action<'a, u64> {
        self.action("count_lefts", move |s| async move {
            self.count_opt(s, doc! { self.right: id_to_bson::<R>(right)? })
                .await
        })
    }

    async fn count_opt(
        &self,
        session: Option<&mut ClientSession>,
        filter: BsonDocument,
    ) -> Result<u64> {
        with_session!(self.coll.count_documents(filter), session)
            .map_err(|e| self.err(e, "count in"))
    }

    /// Removes every edge of `left` (when deleting it): one `delete`.
    /// In a [`session`](Action::session), e.g. in the transaction that
    /// deletes the left document.
    pub fn remove_left<'a>(&'a self, left: &'a L::Id) -> Action<'a, u64> {
        self.action("remove_left", move |s| async move {
            self.remove_opt(s, doc! { self.left: id_to_bson::<L>(left)? })
                .await
        })
    }

    /// Removes every edge of `right`: one `delete`.
    pub fn remove_right<'a>(&'a self, right: &'a R::Id) -> Action<'a, u64> {
        self.action("remove_right", move |s| async move {
            self.remove_opt(s, doc! { self.right: id_to_bson::<R>(right)? })
                .await
        })
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
    ) -> Result<crate::query::explain::PlanSummary> {
        let shape =
            self.listing_shape((self.left, self.right), id_to_bson::<L>(left)?, None, limit);
        crate::query::explain::explain_find(db, self.collection, &shape).await
    }
}
