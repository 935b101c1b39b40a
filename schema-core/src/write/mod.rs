//! Writes: typed updates of one document (by `_id` or by filter, with
//! upsert) or of many, deletes by `_id` or of many, find-and-modify
//! returning the document before or after, and `insert_many`, ordered or
//! not, naming every document the server refused.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use schema_core::ReturnDocument;
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

mod delete;
pub(crate) mod embed;
mod insert;
mod options;
mod update;

use options::Filtered;

pub use options::{
    DeleteOptions, FindOneAndUpdateOptions, InsertManyOptions, ReturnDocument, UpdateByIdOptions,
    UpdateOptions, UpdateResult,
};

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
        let filter = self.keys.seal_filter::<M>(filter).await?;
        let collation = options.collation.as_ref().map(IndexCollation::to_driver);
        Ok(Matching { filter, collation })
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
