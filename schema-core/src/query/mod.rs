//! Queries: [`Repo::find`](crate::Repo::find), [`find_one`](crate::Repo::find_one)
//! and [`count`](crate::Repo::count) as builders, the [`DocStream`] of their
//! documents, [`Projection`]s, and the index guard every query passes first.
//!
//! # The index guard
//!
//! A query is sent only when one of the model's declared
//! indexes serves it, by the ESR rule (Equality, Sort, Range).
//!
//! **The rule.** A query is served when some index of the model (or the
//! `_id` index) has a key prefix made of
//!
//! 1. every field the query tests for equality (in any order),
//! 2. then the sort fields, in the sort's order, with the sort's directions
//!    or all of them reversed (a sort field the query also tests for
//!    equality is constant, so it is dropped from the sort),
//! 3. then at most one field the query tests with a range (a range on a sort
//!    field is part of the sort).
//!
//! Equality on `_id`, or on every key of a unique index, is always served (it
//! reads at most one document per value). A query with no condition and no
//! sort reads every document: it is not served. For `$or`, every branch
//! (with the conditions outside the `$or`) must be served.
//!
//! **What counts as what**, read from the filter document (a typed filter
//! and a raw `doc!` alike):
//!
//! - equality: `{f: value}` (a sub-document value is equality on `f` as a
//!   whole), `$eq`, `$in`, `$all`;
//! - range: `$gt`, `$gte`, `$lt`, `$lte`, `$ne`, `$nin`, `$exists`, `$regex`,
//!   `$type`, `$not`;
//! - `$and` is flattened;
//! - `$elemMatch` is checked on the documents the other conditions find: it
//!   is served when they are (`{"items.sku": "a", items: {$elemMatch: {sku:
//!   "a", qty: 2}}}` rides an index on `items.sku`), and alone it is not
//!   (the test server plans it as a collection scan, so the guard does not
//!   count on an index bounding it);
//! - no index can bound `$where`, `$expr`, `$text`, `$nor`, `$size`, `$mod`,
//!   the `$bits...` tests, nor an operator this guard does not know: a
//!   query with one of them is served only through an equality on `_id` (or
//!   on a unique index).
//!
//! **Paths and arrays.** A dotted path is served by an index on that same
//! path: an index on `profile.displayName` serves `{"profile.displayName": x}`
//! and not `{profile: {displayName: x}}` (which is equality on `profile` as a
//! whole, as the server reads it). Equality and ranges on an array field
//! (or a path through one) are served by its multikey index as on any other
//! field; a sort on such a path is not, because the server sorts arrays in
//! memory.
//!
//! **Index options.** A partial index serves no query here (whether a
//! filter implies the partial filter is not checked), and a sparse index
//! only a query with a non-null equality on its first key.
//!
//! The escape hatch is `.scan()` on the query builder: a collection scan on
//! purpose, greppable. Refusals are [`Error::Unindexed`](crate::Error::Unindexed),
//! returned before anything is sent; [`check`] runs the guard on a query of
//! your own.

mod find;
mod guard;
pub mod keyset;
mod projection;
mod sort;
mod stream;

pub use find::{Count, Find, FindOne, DEFAULT_BATCH_SIZE};
pub use guard::check;
pub use keyset::{Cursor, Page};
#[doc(hidden)]
pub use projection::same_name;
pub use projection::Projection;
pub use sort::Sort;
pub use stream::DocStream;
