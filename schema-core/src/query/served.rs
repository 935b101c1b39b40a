//! The guard's promise kept on the server: the index that serves a query
//! exists there. A query one index serves is sent with that index as its
//! `hint`, so the server uses it or refuses ([`Repo::hinted_error`] turns
//! the refusal into [`Error::MissingIndex`]); any other query (an `$or`
//! whose branches ride different indexes, a write by filter, a reference's
//! page) first makes sure the server lists its indexes, asking
//! `listIndexes` once per index and repository ([`Repo::require_indexes`]),
//! and again once a hinted query found an index gone.

use std::collections::HashSet;
use std::sync::Mutex;

use bson::Document as BsonDocument;
use futures_util::TryStreamExt;

use crate::error::{code, Error, Result};
use crate::index::name_of_key_document;
use crate::model::Document;
use crate::repo::{IndexKey, Repo};

/// The indexes a repository (and its clones) found on the server.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    inner: Mutex<SeenSets>,
}

#[derive(Debug, Default)]
struct SeenSets {
    /// References' indexes, by stored name and sort key (no allocation to
    /// look one up).
    references: HashSet<IndexKey>,
    /// Other indexes, by key pattern name (`status_1_views_-1`).
    patterns: HashSet<String>,
}

impl Seen {
    fn with<T>(&self, f: impl FnOnce(&mut SeenSets) -> T) -> Option<T> {
        self.inner.lock().ok().map(|mut sets| f(&mut sets))
    }
}

/// The `_id` index, which every collection has.
fn is_id(keys: &BsonDocument) -> bool {
    keys.len() == 1 && keys.contains_key("_id")
}

/// The server's refusal of a `hint` naming no index it has.
fn hint_refused(e: &mongodb::error::Error) -> bool {
    let code = crate::error::DriverErrorExt::code(e);
    code == Some(code::INDEX_NOT_FOUND)
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
        let seen = self.seen().with(|s| s.references.contains(&key));
        if seen == Some(true) {
            return Ok(());
        }
        let keys = keys();
        self.require_listed(std::slice::from_ref(&keys)).await?;
        self.seen().with(|s| s.references.insert(key));
        Ok(())
    }

    /// Fails with [`Error::MissingIndex`] unless the collection has every
    /// index of `indexes` (key patterns; `_id`'s needs no asking). Asks the
    /// server once per index and repository.
    pub(crate) async fn require_indexes(&self, indexes: &[BsonDocument]) -> Result<()> {
        let unseen: Vec<BsonDocument> = indexes
            .iter()
            .filter(|keys| !is_id(keys))
            .filter(|keys| {
                let name = name_of_key_document(keys);
                self.seen().with(|s| s.patterns.contains(&name)) != Some(true)
            })
            .cloned()
            .collect();
        if unseen.is_empty() {
            return Ok(());
        }
        self.require_listed(&unseen).await?;
        self.seen().with(|s| {
            s.patterns.extend(unseen.iter().map(name_of_key_document));
        });
        Ok(())
    }

    /// One `listIndexes`: [`Error::MissingIndex`] for the first of `wanted`
    /// the server does not have.
    async fn require_listed(&self, wanted: &[BsonDocument]) -> Result<()> {
        let listed: std::result::Result<Vec<mongodb::IndexModel>, _> =
            match self.collection().list_indexes().await {
                Ok(cursor) => cursor.try_collect().await,
                Err(e) => Err(e),
            };
        let models = match listed {
            Ok(models) => models,
            // The collection does not exist yet: it has no index.
            Err(e) if crate::error::DriverErrorExt::code(&e) == Some(code::NAMESPACE_NOT_FOUND) => {
                Vec::new()
            }
            Err(e) => return Err(self.err(e, "list indexes of")),
        };
        match wanted.iter().find(|keys| {
            !models
                .iter()
                .any(|m| crate::plan::same_key_order(&m.keys, keys))
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

    /// A driver error of a query sent with `hint`: when the server refused
    /// the hint (the index is gone, or was never made), [`Error::MissingIndex`]
    /// naming it, and every index this repository had seen is asked about
    /// again; otherwise the error as [`Repo::err`] classifies it.
    pub(crate) fn hinted_error(
        &self,
        e: mongodb::error::Error,
        action: &'static str,
        hint: Option<&BsonDocument>,
    ) -> Error {
        match hint {
            Some(keys) if hint_refused(&e) => {
                self.seen().with(|s| {
                    s.references.clear();
                    s.patterns.clear();
                });
                self.missing(keys)
            }
            _ => self.err(e, action),
        }
    }
}

/// A driver action sent with the `hint` of the index a query rides, when
/// the guard found one: `with_hint!(action, hint)`.
macro_rules! with_hint {
    ($action:expr, $hint:expr) => {
        match $hint {
            Some(keys) => $action.hint(mongodb::options::Hint::Keys(keys.clone())),
            None => $action,
        }
    };
}
pub(crate) use with_hint;

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn the_id_index_needs_no_asking() {
        assert!(is_id(&doc! { "_id": 1 }));
        assert!(!is_id(&doc! { "_id": 1, "a": 1 }));
        assert!(!is_id(&doc! { "a": 1 }));
    }
}
