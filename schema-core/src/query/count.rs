//! [`Count`]: how many documents match a filter, as a builder awaited
//! directly.

use crate::error::Result;
use crate::exec::action::Action;
use crate::model::index::collation::IndexCollation;
use crate::model::Document;
use crate::query::find::with_session;
use crate::query::guard::{self};
use crate::repo::Repo;
use crate::typed::filter::Filter;
use bson::Document as BsonDocument;
use futures_util::future::BoxFuture;
use mongodb::ClientSession;
use std::future::IntoFuture;

impl<M: Document> Repo<M> {
    /// How many documents match `filter`: one `aggregate`
    /// (`countDocuments`), guarded as [`find`](Self::find) is.
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[serde(rename_all = "camelCase")]
    /// # #[document(collection = "posts")]
    /// # struct Post {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     #[reference(index)]
    /// #     author_id: String,
    /// # }
    /// # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
    /// let posts = Repo::<Post>::new(&db);
    /// let by_ada = posts.count(Post::FIELDS.author_id.eq("ada")).await?;
    /// let all = posts.count(bson::doc! {}).scan().await?; // reads every document
    /// # Ok(())
    /// # }
    /// ```
    pub fn count(&self, filter: impl Into<Filter<M>>) -> Count<'_, M> {
        Count {
            repo: self,
            filter: filter.into().into_document(),
            scan: false,
            collation: None,
            session: None,
        }
    }
}

/// A count of the documents matching a filter (see [`Repo::count`]).
#[must_use = "a query does nothing until it is awaited"]
pub struct Count<'a, M: Document> {
    pub(super) repo: &'a Repo<M>,
    pub(super) filter: Result<BsonDocument>,
    pub(super) scan: bool,
    pub(super) collation: Option<IndexCollation>,
    pub(super) session: Option<&'a mut ClientSession>,
}

impl<'a, M: Document> Count<'a, M> {
    /// Allows a collection scan on purpose (see [`Find::scan`](crate::Find::scan)).
    pub fn scan(mut self) -> Self {
        self.scan = true;
        self
    }

    /// Counts with `collation`: `ann@EXAMPLE.org` counts as
    /// `Ann@example.org` at strength 2, and only an index with the same
    /// collation serves the count (see [`Find::collation`](crate::Find::collation)).
    pub fn collation(mut self, collation: IndexCollation) -> Self {
        self.collation = Some(collation);
        self
    }

    /// Runs in the caller's session (see [`Find::session`](crate::Find::session)).
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }
}

impl<'a, M: Document> IntoFuture for Count<'a, M> {
    type Output = Result<u64>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(mut self) -> Self::IntoFuture {
        let session = self.session.take();
        let action = Action::new(M::COLLECTION, "count", self, |s, count: Self| async move {
            let filter = count.filter?;
            let served = match count.scan {
                true => None,
                false => Some(guard::plan_with::<M>(
                    &filter,
                    None,
                    count.collation.as_ref(),
                )?),
            };
            if let Some(served) = &served {
                count.repo.require_indexes(&served.indexes).await?;
            }
            let filter = count.repo.keys.seal_filter::<M>(filter).await?;
            let error = |e| count.repo.index_error(e, "count in", served.as_ref());
            let collation = count.collation.as_ref().map(IndexCollation::to_driver);
            count.repo.count_opt(s, filter, collation, error).await
        });
        with_session(action, session).into_future()
    }
}
