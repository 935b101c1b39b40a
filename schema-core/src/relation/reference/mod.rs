//! One-to-many by reference from the child: `#[reference(index, to = User,
//! sort(at = desc))]` on `Post::author_id`.
//!
//! [`Repo::children`](crate::Repo::children) pages a parent's children on
//! the index setup created (`{authorId: 1, at: -1, _id: -1}`), newest
//! first, by keyset: each page is a `find` with the parent's id, a bound
//! past the last child returned, `sort: {at: -1, _id: -1}` and `limit`.
//! That shape leaves the planner one index that serves both the filter and
//! the sort; the plan is `LIMIT > FETCH > IXSCAN(authorId_1_at_-1__id_-1)`
//! and a page reads at most page size + 1 index keys, however many children
//! share a sort value. The first page of a [`Repo`](crate::Repo) checks once
//! (`listIndexes`) that the index exists, and refuses with
//! [`Error::MissingIndex`](crate::Error::MissingIndex) rather than scan the
//! collection.
//!
//! **Order.** Children come by the sort key in its direction, and children
//! with equal sort values (or with none: null and missing sort first
//! ascending, last descending) by `_id` in the same direction: newest first
//! means `at` descending, then `_id` descending; [`Children::reversed`] is
//! exactly the opposite order. A reference without a sort key pages by
//! `_id` ascending. This is the index's own order (setup puts `_id` last in
//! a reference's index, in the sort key's direction), so no page sorts in
//! memory. A `unique` reference has no ties and no `_id` in its index.
//!
//! **The cursor** is the last child's sort value and `_id`, and whether it
//! shares its sort value with the child before it: constant size, however
//! long a run of equal values. The next page is the keyset bound
//! `(at < last) OR (at == last AND _id < id)`, sent so that the index scan
//! starts at the cursor:
//!
//! - usually as one `find`: the range `at <= last` bounds the scan and the
//!   `$or` is checked on each document, which reads the cursor's own key
//!   and document again, then the page (keys = page size + 1);
//! - after a cursor inside a run of equal values (where that range would
//!   re-read the run from its start), as `{at: last, _id < id}` (the rest of
//!   the run, one tight range) and, only if that leaves the page short, a
//!   second `find` with `at < last` for the rest of the page;
//! - a newest-first page that may reach children without a sort value
//!   (when the model lets it be null or missing) ends with one more `find`
//!   for those (`at: null`), again only if the page is still short.
//!
//! Each `find` is `LIMIT > FETCH > IXSCAN` on the reference index, limited
//! to what the page still lacks, so a page reads at most page size + 1
//! index keys in all. Pages never repeat nor skip a child, even while
//! children are inserted between reads (a child inserted before the
//! cursor's position is not seen, one inserted after it is).
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize, Clone)]
//! # #[document(collection = "users")]
//! # struct User { #[serde(rename = "_id")] id: String }
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[serde(rename_all = "camelCase")]
//! # #[document(collection = "posts")]
//! # struct Post {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     #[reference(index, to = User, sort(at = desc))]
//! #     author_id: String,
//! #     at: bson::DateTime,
//! # }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let posts = Repo::<Post>::new(&db);
//! let users = Repo::<User>::new(&db);
//! let author = "user_42".to_owned();
//! let mut page = posts.children(Post::FIELDS.author_id, &author).page_size(10).page().await?;
//! let authors = users.parents_of(Post::FIELDS.author_id, &page.items).await?; // one `$in`
//! while let Some(next) = page.next.take() {
//!     page = posts.children(Post::FIELDS.author_id, &author).page_size(10).after(next).page().await?;
//! }
//! # Ok(())
//! # }
//! ```

mod children;
mod parents;

pub use children::{Children, DEFAULT_PAGE_SIZE};
