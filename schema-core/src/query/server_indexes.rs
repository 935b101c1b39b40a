//! The guard's promise kept on the server: the indexes that serve a query
//! exist there. Before a guarded query (a find, a count, a write by filter,
//! a reference's page) the repository makes sure the server lists them,
//! asking `listIndexes` once per index and repository
//! ([`Repo::require_indexes`]), and again once the server said an index is
//! gone ([`Repo::index_error`]: a query killed because its index was
//! dropped, or a `hint` naming no index).
//!
//! Why not a `hint` on every query, which would make the server use the
//! index or refuse each time: on the test server a hinted `find_one` took
//! 1.15 times as long as the same query unhinted (typed_ops bench), and a
//! hinted `$or` 40 times as long.

use bson::Document as BsonDocument;
use futures_util::TryStreamExt;

use crate::error::{code, Error, Result};
use crate::model::index::name_of_key_document;
use crate::model::Document;
use crate::query::guard::{Served, ServingIndex};
use crate::repo::{IndexKey, Repo, Seen};

/// The server saying an index a query needed is gone: the query was killed
/// because its index was dropped (`QueryPlanKilled`), the index was not
/// found, or a `hint` named no index it has.
fn index_gone(e: &mongodb::error::Error) -> bool {
    let code = crate::error::DriverErrorExt::code(e);
    matches!(code, Some(code::QUERY_PLAN_KILLED | code::INDEX_NOT_FOUND))
        || (code == Some(code::BAD_VALUE)
            && e.to_string()
                .contains("does not correspond to an existing index"))
}

impl<M: Document> Repo<M> {
    /// Fails with [`Error::MissingIndex`] unless the collection has the
    /// index `keys()` of the reference `key` (its stored name and sort key).
    /// Asks the server (`listIndexes`) once per repository and reference;
    /// after that it sends nothing and allocates nothing.
    pub(crate) async fn require_index(
        &self,
        key: IndexKey,
        keys: impl FnOnce() -> BsonDocument,
    ) -> Result<()> {
        if self.seen().has_reference(&key) {
            return Ok(());
        }
        let keys = keys();
        self.require_listed(std::slice::from_ref(&keys)).await?;
        self.seen().add_reference(key);
        Ok(())
    }

    /// Fails with [`Error::MissingIndex`] unless the collection has every
    /// index of `indexes` (`_id`'s needs no asking). Asks the server once per
    /// index and repository; after that it sends nothing and allocates
    /// nothing.
    pub(crate) async fn require_indexes(&self, indexes: &[&ServingIndex]) -> Result<()> {
        let unseen: Vec<&ServingIndex> = indexes
            .iter()
            .copied()
            .filter(|index| !index.implicit && !self.seen().has_pattern(&index.name))
            .collect();
        if unseen.is_empty() {
            return Ok(());
        }
        let wanted: Vec<BsonDocument> = unseen.iter().map(|i| i.keys.clone()).collect();
        self.require_listed(&wanted).await?;
        self.seen()
            .add_patterns(unseen.iter().map(|i| i.name.clone()));
        Ok(())
    }

    /// One `listIndexes`: [`Error::MissingIndex`] for the first of `wanted`
    /// the server does not have.
    async fn require_listed(&self, wanted: &[BsonDocument]) -> Result<()> {
        let models = listed_indexes(self.database(), M::COLLECTION).await?;
        match wanted.iter().find(|keys| {
            !models
                .iter()
                .any(|m| crate::model::index::server::same_key_order(&m.keys, keys))
        }) {
            Some(missing) => Err(self.missing(missing)),
            None => Ok(()),
        }
    }

    /// [`Error::MissingIndex`] for `keys` on this collection.
    fn missing(&self, keys: &BsonDocument) -> Error {
        Error::MissingIndex {
            collection: M::COLLECTION,
            index: name_of_key_document(keys),
        }
    }

    /// A driver error of a guarded query: when the server says an index is
    /// gone (the query was killed as its index was dropped, or a `hint`
    /// named no index), [`Error::MissingIndex`] naming the index `served`
    /// rides, and every index this repository had seen is asked about
    /// again; otherwise the error as [`Repo::err`] classifies it.
    pub(crate) fn index_error(
        &self,
        e: mongodb::error::Error,
        action: &'static str,
        served: Option<&Served>,
    ) -> Error {
        index_error_in::<M>(self.seen(), e, action, served)
    }
}

/// The indexes `listIndexes` reports for `collection` (one command, every
/// batch read); none when the collection does not exist yet.
pub(crate) async fn listed_indexes(
    db: &mongodb::Database,
    collection: &str,
) -> Result<Vec<mongodb::IndexModel>> {
    let coll = db.collection::<BsonDocument>(collection);
    let listed: std::result::Result<Vec<mongodb::IndexModel>, _> = match coll.list_indexes().await {
        Ok(cursor) => cursor.try_collect().await,
        Err(e) => Err(e),
    };
    match listed {
        Ok(models) => Ok(models),
        Err(e) if crate::error::DriverErrorExt::code(&e) == Some(code::NAMESPACE_NOT_FOUND) => {
            Ok(Vec::new())
        }
        Err(e) => Err(Error::from_server(e, "list indexes of", collection)),
    }
}

/// [`Repo::index_error`] with the repository's [`Seen`] alone (for a
/// stream's later batches).
pub(crate) fn index_error_in<M: Document>(
    seen: &Seen,
    e: mongodb::error::Error,
    action: &'static str,
    served: Option<&Served>,
) -> Error {
    match served.and_then(|s| s.indexes.first()) {
        Some(index) if index_gone(&e) => {
            seen.forget();
            Error::MissingIndex {
                collection: M::COLLECTION,
                index: name_of_key_document(&index.keys),
            }
        }
        _ => Error::from_server(e, action, M::COLLECTION),
    }
}
