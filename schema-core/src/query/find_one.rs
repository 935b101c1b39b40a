//! [`FindOne`]: the first document matching a filter, as a builder awaited
//! directly.

use crate::error::Result;
use crate::exec::action::Action;
use crate::model::index::collation::IndexCollation;
use crate::model::Document;
use crate::query::find::{with_session, Find};
use crate::query::projection::Projection;
use crate::query::sort::Sort;
use crate::repo::Repo;
use crate::typed::filter::Filter;
use futures_util::future::BoxFuture;
use mongodb::ClientSession;
use std::future::IntoFuture;

impl<M: Document> Repo<M> {
    /// The first document matching `filter` (with [`FindOne::sort`], the
    /// first in that order), guarded as [`find`](Self::find) is.
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "users", index(keys(email = asc), unique))]
    /// # struct User {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     email: String,
    /// # }
    /// # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
    /// let users = Repo::<User>::new(&db);
    /// let ada = users.find_one(User::FIELDS.email.eq("ada@example.com")).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn find_one(&self, filter: impl Into<Filter<M>>) -> FindOne<'_, M> {
        FindOne {
            find: self.find(filter).limit(1),
        }
    }
}

/// A `find` of one document (see [`Repo::find_one`]).
#[must_use = "a query does nothing until it is awaited"]
pub struct FindOne<'a, M: Document, P = M> {
    pub(super) find: Find<'a, M, P>,
}

impl<'a, M: Document, P: Projection<M>> FindOne<'a, M, P> {
    /// The first document in this order (see [`Find::sort`]).
    pub fn sort(self, sort: impl Into<Sort<M>>) -> Self {
        FindOne {
            find: self.find.sort(sort),
        }
    }

    /// Allows a collection scan on purpose (see [`Find::scan`]).
    pub fn scan(self) -> Self {
        FindOne {
            find: self.find.scan(),
        }
    }

    /// Sends the query with `collation` (see [`Find::collation`]).
    pub fn collation(self, collation: IndexCollation) -> Self {
        FindOne {
            find: self.find.collation(collation),
        }
    }

    /// Runs in the caller's session (see [`Find::session`]).
    pub fn session(self, session: &'a mut ClientSession) -> Self {
        FindOne {
            find: self.find.session(session),
        }
    }

    /// Yields a partial view (see [`Find::projection`]).
    pub fn projection<V: Projection<M>>(self) -> FindOne<'a, M, V> {
        FindOne {
            find: self.find.projection(),
        }
    }
}

impl<'a, M: Document, P: Projection<M>> IntoFuture for FindOne<'a, M, P> {
    type Output = Result<Option<P>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(mut self) -> Self::IntoFuture {
        let session = self.find.session.take();
        let action = Action::new(
            M::COLLECTION,
            "find_one",
            self.find,
            |s, find: Find<'a, M, P>| find.first(s),
        );
        with_session(action, session).into_future()
    }
}
