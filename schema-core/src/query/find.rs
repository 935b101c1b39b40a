//! [`Find`]: the query of a [`Repo`], as a builder awaited directly (as the
//! driver's own actions are); [`FindOne`](super::FindOne) and
//! [`Count`](super::Count) beside it.

use futures_util::future::BoxFuture;
use std::future::IntoFuture;
use std::marker::PhantomData;

use bson::{Document as BsonDocument, RawDocument};
use futures_util::{StreamExt, TryStreamExt};
use mongodb::ClientSession;

use crate::error::{Error, Result};
use crate::exec::action::Action;
use crate::model::index::collation::IndexCollation;
use crate::model::Document;
use crate::query::explain::{explain_find, FindShape, PlanSummary};
use crate::query::guard::{self, Served};
use crate::query::keyset::{may_be_null, Cursor, Keyset};
use crate::query::projection::{self, Projection};
use crate::query::server_indexes;
use crate::query::sort::Sort;
use crate::query::stream::{unseal_as, DocStream};
use crate::repo::Repo;
use crate::txn::with_session;
use crate::typed::filter::Filter;

impl<M: Document> Repo<M> {
    /// The documents matching `filter` (build it with the typed fields:
    /// `Post::FIELDS.author_id.eq(&id)`, or pass a `bson::Document`), as a
    /// builder: add `.sort(...)`, `.limit(n)`, `.projection::<View>()`,
    /// `.session(&mut s)`, then await it for a [`DocStream`] of documents
    /// (or call [`all`](Find::all) for a `Vec`).
    ///
    /// The query passes the index guard first (see `query`):
    /// unless one of `M`'s indexes serves it, it is refused with
    /// [`Error::Unindexed`] before anything is sent;
    /// [`scan`](Find::scan) allows a collection scan on purpose.
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
    /// #     #[reference(index, sort(at = desc))]
    /// #     author_id: String,
    /// #     at: i64,
    /// # }
    /// # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
    /// use futures_util::TryStreamExt;
    ///
    /// let posts = Repo::<Post>::new(&db);
    /// let ada = "ada".to_owned();
    /// let mut newest = posts
    ///     .find(Post::FIELDS.author_id.eq(&ada))
    ///     .sort(Post::FIELDS.at.desc())
    ///     .limit(100)
    ///     .await?;
    /// while let Some(post) = newest.try_next().await? {
    ///     println!("{}", post.id);
    /// }
    /// let every = posts.find(bson::doc! {}).scan().all().await?; // on purpose
    /// # Ok(())
    /// # }
    /// ```
    pub fn find(&self, filter: impl Into<Filter<M>>) -> Find<'_, M> {
        Find {
            repo: self,
            filter: filter.into().into_document(),
            sort: None,
            limit: None,
            batch_size: None,
            scan: false,
            session: None,
            after: None,
            served: None,
            collation: None,
            _view: PhantomData,
        }
    }
}

/// A `find` on `M` yielding `P` (see [`Repo::find`]).
#[must_use = "a query does nothing until it is awaited"]
pub struct Find<'a, M: Document, P = M> {
    pub(super) repo: &'a Repo<M>,
    pub(super) filter: Result<BsonDocument>,
    pub(super) sort: Option<BsonDocument>,
    pub(super) limit: Option<u64>,
    pub(super) batch_size: Option<u32>,
    pub(super) scan: bool,
    pub(super) session: Option<&'a mut ClientSession>,
    pub(super) after: Option<Cursor>,
    /// The indexes the guard found serving the query, once it ran.
    pub(super) served: Option<Served>,
    /// The collation the query is sent with (see [`collation`](Self::collation)).
    pub(super) collation: Option<IndexCollation>,
    pub(super) _view: PhantomData<fn() -> P>,
}

/// How many documents a query's batches hold when it sets no
/// [`batch_size`](Find::batch_size): a stream's memory is about one batch, so
/// about 1,000 documents (and never more than the server's 16 MiB a batch).
/// Without it the server fills each `getMore` up to 16 MiB (70,197 small
/// documents on the test server), and a stream would hold that much; a
/// result collected with [`all`](Find::all) holds one such batch beside the
/// `Vec`.
pub const DEFAULT_BATCH_SIZE: u32 = 1_000;

impl<'a, M: Document, P: Projection<M>> Find<'a, M, P> {
    /// Sorts by `sort` (`Post::FIELDS.at.desc()`, or a `bson::Document`);
    /// called again, sorts by the keys given before, then these. The sort
    /// is part of what the index guard checks: the index must give this
    /// order (or its exact reverse) after the equality fields.
    pub fn sort(mut self, sort: impl Into<Sort<M>>) -> Self {
        let sort = sort.into();
        self.sort = Some(match self.sort.take() {
            Some(before) => Sort::from(before).then(sort).into_document(),
            None => sort.into_document(),
        });
        self
    }

    /// At most `n` documents.
    pub fn limit(mut self, n: u64) -> Self {
        self.limit = Some(n);
        self
    }

    /// How many documents the server returns per batch (memory use of the
    /// stream is about one batch); [`DEFAULT_BATCH_SIZE`] (1,000) when not set.
    pub fn batch_size(mut self, n: u32) -> Self {
        self.batch_size = Some(n);
        self
    }

    /// Sends the query with `collation`, so that string comparisons follow
    /// it (`IndexCollation::new("en").strength(2)`: case ignored) and an
    /// index with the same collation serves it. The index guard then counts
    /// only on indexes with this collation: one declared with
    /// `#[document(index(keys(email = asc), collation(locale = "en",
    /// strength = 2)))]` serves `email.eq(..)` sent with it, and no index
    /// without a collation does (see `collation`).
    pub fn collation(mut self, collation: IndexCollation) -> Self {
        self.collation = Some(collation);
        self
    }

    /// Allows a collection scan on purpose: the index guard does not check
    /// this query. Greppable on purpose.
    pub fn scan(mut self) -> Self {
        self.scan = true;
        self
    }

    /// Runs in the caller's session (and its transaction, if one is in
    /// progress); the stream then borrows the session until it is dropped.
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }

    /// The caller's session, taken out (to run the query in an action that
    /// holds it).
    pub(crate) fn take_session(&mut self) -> Option<&'a mut ClientSession> {
        self.session.take()
    }

    /// The database the query is sent to.
    pub(crate) fn database(&self) -> &mongodb::Database {
        self.repo.database()
    }

    /// The repository the query reads.
    pub(crate) fn repo(&self) -> &'a Repo<M> {
        self.repo
    }

    /// Yields a partial view of each document: sends
    /// [`V::projection()`](Projection::projection) and decodes each
    /// document as a `V` (see [`Projection`]).
    pub fn projection<V: Projection<M>>(self) -> Find<'a, M, V> {
        Find {
            repo: self.repo,
            filter: self.filter,
            sort: self.sort,
            limit: self.limit,
            batch_size: self.batch_size,
            scan: self.scan,
            session: self.session,
            after: self.after,
            served: self.served,
            collation: self.collation,
            _view: PhantomData,
        }
    }

    /// The documents as a stream, the query sent on the first poll (an
    /// error, the guard's included, is its first item).
    pub fn stream(self) -> DocStream<'a, P> {
        DocStream::from_stream(
            futures_util::stream::once(self.into_future())
                .map(|opened| match opened {
                    Ok(stream) => stream,
                    Err(e) => DocStream::failed(e),
                })
                .flatten(),
        )
    }

    /// Every document, collected into a `Vec`: as many as match, so give a
    /// [`limit`](Self::limit) unless the filter bounds them (or stream them).
    pub async fn all(self) -> Result<Vec<P>> {
        self.await?.try_collect().await
    }

    /// What the server does for this query: `explain` (`executionStats`)
    /// of the `find` it sends, after the same index guard (the session is
    /// not used).
    pub async fn explain(mut self) -> Result<PlanSummary> {
        let filter = self.stream_query()?;
        let filter = self.repo.keys.seal_filter::<M>(filter).await?;
        let shape = FindShape {
            filter,
            sort: self.sort,
            limit: self.limit.map(|n| i64::try_from(n).unwrap_or(i64::MAX)),
            projection: projection::sent::<M, P>(),
            hint: None,
            collation: self.collation.as_ref().map(IndexCollation::to_document),
        };
        explain_find(self.repo.database(), M::COLLECTION, &shape).await
    }

    /// The filter, once the index guard let it through (unless
    /// [`scan`](Self::scan)).
    /// With [`after`](Self::after), the sort is the keyset order and the
    /// filter the documents after the cursor; [`page`](Self::page) adds the
    /// cursor's conditions itself.
    pub(super) fn checked_filter(&mut self) -> Result<BsonDocument> {
        let filter = std::mem::replace(&mut self.filter, Ok(BsonDocument::new()))?;
        if !self.scan {
            self.served = Some(guard::plan_with::<M>(
                &filter,
                self.sort.as_ref(),
                self.collation.as_ref(),
            )?);
        }
        guard::targeting::note::<M>(&filter, "find");
        Ok(filter)
    }

    /// Before a query the guard checked: the server has the indexes it
    /// rides (see [`server_indexes`](super::server_indexes)).
    pub(super) async fn require_served(&self) -> Result<()> {
        match &self.served {
            Some(served) => self.repo.require_indexes(&served.indexes).await,
            None => Ok(()),
        }
    }

    /// A driver error of the query itself.
    fn error(&self, e: mongodb::error::Error) -> Error {
        self.repo.index_error(e, "find in", self.served.as_ref())
    }

    /// The filter and sort a stream sends: after a cursor, the keyset's.
    fn stream_query(&mut self) -> Result<BsonDocument> {
        let Some(cursor) = self.after.take() else {
            return self.checked_filter();
        };
        let keyset = Keyset::of_sort(self.sort.as_ref());
        self.sort = Some(keyset.sort());
        let base = self.checked_filter()?;
        Ok(keyset.after(base, &cursor, may_be_null::<M>))
    }

    /// The first document of the query, sent as the driver's own
    /// `find_one` (one batch of one document) after the same index guard.
    pub(super) async fn first(
        mut self,
        session: Option<&'a mut ClientSession>,
    ) -> Result<Option<P>> {
        let filter = self.stream_query()?;
        self.require_served().await?;
        let filter = self.repo.keys.seal_filter::<M>(filter).await?;
        let raw = self.repo.raw_docs();
        let mut find = raw.find_one(filter);
        if let Some(sort) = self.sort.take() {
            find = find.sort(sort);
        }
        if let Some(collation) = &self.collation {
            find = find.collation(collation.to_driver());
        }
        if let Some(projection) = projection::sent::<M, P>() {
            find = find.projection(projection);
        }
        let found = with_session!(find, session).map_err(|e| self.error(e))?;
        match found {
            Some(raw) => {
                let raw = self.repo.keys.unseal::<M>(raw).await?;
                decode::<M, P>(&raw).map(Some)
            }
            None => Ok(None),
        }
    }

    /// Checks the query against the index guard (unless [`scan`](Self::scan))
    /// and sends it, in `session` when there is one.
    async fn open(mut self, session: Option<&'a mut ClientSession>) -> Result<DocStream<'a, P>> {
        let filter = self.stream_query()?;
        self.require_served().await?;
        let filter = self.repo.keys.seal_filter::<M>(filter).await?;
        let raw = self.repo.raw_docs();
        let mut find = raw.find(filter);
        if let Some(sort) = self.sort.take() {
            find = find.sort(sort);
        }
        if let Some(collation) = &self.collation {
            find = find.collation(collation.to_driver());
        }
        if let Some(n) = self.limit {
            find = find.limit(i64::try_from(n).unwrap_or(i64::MAX));
        }
        find = find.batch_size(self.batch_size.unwrap_or(DEFAULT_BATCH_SIZE));
        if let Some(projection) = projection::sent::<M, P>() {
            find = find.projection(projection);
        }
        // A `getMore` killed because the index was dropped says it is gone.
        let (seen, served) = (self.repo.seen_shared(), self.served.clone());
        let err =
            move |e| server_indexes::index_error_in::<M>(&seen, e, "find in", served.as_ref());
        let decode = decode::<M, P>;
        // Encrypted fields are decrypted on the way (see `crypt`).
        let keys = crate::model::cache::may_be_sealed::<M>().then(|| self.repo.keys.clone());
        match session {
            Some(session) => {
                let cursor = find.session(&mut *session).await;
                let cursor = cursor.map_err(|e| self.error(e))?;
                Ok(match keys {
                    Some(keys) => DocStream::in_session_unsealed::<M>(
                        cursor,
                        session,
                        keys,
                        unseal_as::<M>(),
                        decode,
                        err,
                    ),
                    None => DocStream::in_session(cursor, session, decode, err),
                })
            }
            None => {
                let cursor = find.await.map_err(|e| self.error(e))?;
                Ok(match keys {
                    Some(keys) => {
                        DocStream::unsealed::<M>(cursor, keys, unseal_as::<M>(), decode, err)
                    }
                    None => DocStream::new(cursor, decode, err),
                })
            }
        }
    }
}

impl<'a, M: Document, P: Projection<M>> IntoFuture for Find<'a, M, P> {
    type Output = Result<DocStream<'a, P>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(mut self) -> Self::IntoFuture {
        let session = self.session.take();
        let action = Action::new(M::COLLECTION, "find", self, |s, find: Self| find.open(s));
        with_session(action, session).into_future()
    }
}

/// A stored document of `M` read as the view `P`, upgraded first when it is
/// at an earlier version ([`Error::Decode`] naming the document and the
/// field otherwise).
pub(super) fn decode<M: Document, P: Projection<M>>(raw: &RawDocument) -> Result<P> {
    P::read(raw).map_err(crate::crypt::redact::<M>)
}

/// `action` in `session`, when there is one.
pub(crate) fn with_session<'a, T, O>(
    action: Action<'a, T, O>,
    session: Option<&'a mut ClientSession>,
) -> Action<'a, T, O> {
    match session {
        Some(s) => action.session(s),
        None => action,
    }
}
