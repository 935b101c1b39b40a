//! Keyset pages of a [`Find`]: `after(cursor)` and `page(size)`, never an
//! offset (see [`keyset`](super::keyset)).

use crate::error::Result;
use crate::exec::action::Action;
use crate::model::Document;
use crate::query::find::{decode, with_session, Find};
use crate::query::kept::Kept;
use crate::query::keyset::{may_be_null, Cursor, Keyset, Page};
use crate::query::lookup::{child_of, Lookup, PageStep};
use crate::query::projection::{self, Projection};
use bson::{Document as BsonDocument, RawDocument};
use mongodb::ClientSession;

impl<'a, M: Document, P: Projection<M>> Find<'a, M, P> {
    /// Continues after the page that returned `cursor` (keyset paging, never
    /// an offset): the documents that come after the cursor's in the
    /// query's order, which ends with `_id` to break ties (in the last sort
    /// key's direction, unless the sort names `_id` itself). The index guard
    /// then checks the query with that `_id`: the index must end with it
    /// (as a reference's index does). See `keyset`.
    pub fn after(mut self, cursor: Cursor) -> Self {
        self.after = Some(cursor);
        self
    }

    /// One page of at most `size` documents in the query's order (its sort,
    /// then `_id`), and the [`Cursor`] the next page continues
    /// [`after`](Self::after): the same cursor semantics as a reference's
    /// [`children`](crate::relation::Children::page) (usually one `find`,
    /// limited to `size`; see `keyset`). There is
    /// no offset-based paging.
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "posts", index(keys(status = asc, score = desc, id = desc)))]
    /// # struct Post {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     status: String,
    /// #     score: i64,
    /// # }
    /// # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
    /// let posts = Repo::<Post>::new(&db);
    /// let live = || posts.find(Post::FIELDS.status.eq("live")).sort(Post::FIELDS.score.desc());
    /// let mut page = live().page(20).await?;
    /// while let Some(next) = page.next.take() {
    ///     page = live().after(next).page(20).await?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn page(self, size: u32) -> Action<'a, Page<P>, Self> {
        let mut find = self;
        let session = find.session.take();
        let action = Action::new(M::COLLECTION, "page", find, move |s, find: Self| {
            find.page_opt(s, size.max(1))
        });
        with_session(action, session)
    }

    async fn page_opt(self, session: Option<&'a mut ClientSession>, size: u32) -> Result<Page<P>> {
        let repo = self.repo;
        let mut items = Kept::new(crate::model::cache::may_be_sealed::<M>());
        let next = self
            .page_each(session, size, None, |raw| items.take(raw, decode::<M, P>))
            .await?;
        let items = items
            .open(|raw| async move {
                let raw = repo.keys.unseal::<M>(raw).await?;
                decode::<M, P>(&raw).map_err(crate::crypt::redact::<M>)
            })
            .await?;
        Ok(Page { items, next })
    }

    /// The first step of a page of `size` (its first `find`), once the
    /// index guard let it through and the server listed its indexes.
    pub(crate) async fn first_step(mut self, size: u32) -> Result<PageStep> {
        let (keyset, mut filters) = self.page_filters().await?;
        Ok(PageStep {
            // A page has at least one find.
            filter: filters.swap_remove(0),
            sort: keyset.sort(),
            limit: size,
            hint: None,
        })
    }

    /// The keyset order of a page and the filters of its finds, in page
    /// order (see [`keyset`](super::keyset)), once the index guard
    /// let the query through and the server listed its indexes.
    async fn page_filters(&mut self) -> Result<(Keyset, Vec<BsonDocument>)> {
        let keyset = Keyset::of_sort(self.sort.as_ref());
        self.sort = Some(keyset.sort());
        let base = self.checked_filter()?;
        self.require_served().await?;
        let base = self.repo.keys.seal_filter::<M>(base).await?;
        let filters = keyset.filters(base, self.after.as_ref(), may_be_null::<M>);
        Ok((keyset, filters))
    }

    /// Reads one page, handing each document to `each` as it comes (where
    /// it lies in its batch), and returns the cursor after it: each step of
    /// the keyset a `find`, or, with `lookup`, an `aggregate` that joins
    /// each document with its parent (see [`lookup`]).
    pub(crate) async fn page_each(
        mut self,
        mut session: Option<&'a mut ClientSession>,
        size: u32,
        lookup: Option<&Lookup>,
        mut each: impl FnMut(&RawDocument) -> Result<()>,
    ) -> Result<Option<Cursor>> {
        let (keyset, filters) = self.page_filters().await?;
        let projection = projection::sent::<M, P>().map(|mut projection| {
            for path in keyset.paths() {
                projection.insert(path, 1);
            }
            projection
        });
        let raw = self.repo.raw_docs();
        let driver = |e| {
            self.repo
                .index_error(e, "page through", self.served.as_ref())
        };
        let mut tail = keyset.tail(size);
        for filter in filters {
            let short = tail.short();
            if short == 0 {
                break;
            }
            let short = u32::try_from(short).unwrap_or(size);
            match lookup {
                Some(lookup) => {
                    let step = PageStep {
                        filter,
                        sort: keyset.sort(),
                        limit: short,
                        hint: None,
                    };
                    let joined = lookup
                        .run(&raw, session.as_deref_mut(), step)
                        .await
                        .map_err(driver)?;
                    for doc in &joined {
                        tail.note(child_of(doc)?);
                        each(doc)?;
                    }
                }
                None => {
                    let mut find = raw
                        .find(filter)
                        .sort(keyset.sort())
                        .limit(i64::from(short))
                        .batch_size(short);
                    if let Some(projection) = &projection {
                        find = find.projection(projection.clone());
                    }
                    if let Some(collation) = &self.collation {
                        find = find.collation(collation.to_driver());
                    }
                    let note = |doc: &RawDocument| {
                        tail.note(doc);
                        each(doc)
                    };
                    crate::exec::cursor::each_raw(find, session.as_deref_mut(), note, driver)
                        .await?;
                }
            }
        }
        Ok(tail.cursor(self.after.as_ref()))
    }
}
