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
//! 1. fields the query tests for equality (in any order),
//! 2. then the sort fields, in the sort's order, with the sort's directions
//!    or all of them reversed (a sort field the query also tests for
//!    equality is constant, so it is dropped from the sort),
//! 3. then at most one field the query tests with a range (a range on a sort
//!    field is part of the sort),
//!
//! and every other field the query tests for equality comes later in that
//! index (equality, range, equality: `{status, seats, odo}` serves
//! `{status: "a", seats: {$gt: 2}, odo: 7}`, the server bounding all three
//! keys; it reads one run of keys per distinct `seats` value, 7 keys for 1
//! document in one measure, so order an index equality, sort, range for the
//! tightest scan), provided a leading equality or the range bounds the scan.
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
//! - checked on the documents the other conditions find, so served when
//!   they are, and alone not: `$elemMatch` (`{"items.sku": "a", items:
//!   {$elemMatch: {sku: "a", qty: 2}}}` rides an index on `items.sku`; the
//!   test server plans it alone as a collection scan), `$nor` (a typed
//!   filter's `!`: `depot.eq("north") & !status.eq("active")` rides the
//!   `depot` index) and `$expr`;
//! - geo tests (`$near`, `$nearSphere`, `$geoWithin`, `$geoIntersects`)
//!   and `$text`: served only by an index of their own kind, below;
//! - no index can bound `$where`, `$size`, `$mod`, the `$bits...` tests, nor
//!   an operator this guard does not know: a query with one of them is
//!   served only through an equality on `_id` (or on a unique index).
//!
//! **Index kinds** ([`IndexKind`](crate::IndexKind)). A hashed index
//! (`keys(serial = hashed)`) serves equality and `$in` on its key, never a
//! range or a sort. A 2dsphere index (`keys(loc = "2dsphere")`) serves a
//! query with a geo test on its key, the query's other conditions checked
//! on what it finds, and no sort (`$near` orders by distance); no other
//! index serves a geo test. The text index (`keys(title = "text", ..)`)
//! serves a `$text` search, the other conditions checked on what it finds,
//! and no sort; no other index serves `$text`. Neither serves anything
//! else. A query sent with a collation counts only on indexes with that
//! collation, and one without only on indexes without one (see
//! [`collation`](crate::model::index::collation)).
//!
//! **Paths and arrays.** A dotted path is served by an index on that same
//! path: an index on `profile.displayName` serves `{"profile.displayName": x}`
//! and not `{profile: {displayName: x}}` (which is equality on `profile` as a
//! whole, as the server reads it). Equality and ranges on an array field
//! (or a path through one) are served by its multikey index as on any other
//! field; a sort on such a path is not, because the server sorts arrays in
//! memory.
//!
//! **Index options.** A sparse index holds the documents that have one of
//! its fields, so it serves a query that every matching document has such a
//! field for: a non-null equality, a range (`$gt`, `$gte`, `$lt`, `$lte` on
//! a value other than null), `$exists: true`, `$regex`, `$type` (not
//! `$ne`, `$nin`, `$not`, `$exists: false` or equality with null, which
//! match documents without it). A partial index serves a query whose
//! conditions imply its filter (equalities, `$exists: true`, comparisons
//! and `$type`, in a conjunction: `{status: "live", rank: {$gt: 10}}`
//! implies `{status: "live", rank: {$gte: 10}}`); the query's conditions on
//! the filter's fields are then checked on what the index finds.
//!
//! **On the server.** The guard reads the model; the server must also have
//! the index. Before its first query on an index, a repository (and its
//! clones) asks `listIndexes` once and answers
//! [`Error::MissingIndex`](crate::Error::MissingIndex), sending nothing
//! more, when the server lacks it: a query sent before `sync` scans nothing.
//! When the server says an index is gone (a query killed because its index
//! was dropped, `QueryPlanKilled`), that query is `MissingIndex` and the
//! repository asks again before its next query. An index dropped between
//! two queries of a repository that saw it is noticed by the next query
//! that reads it while it goes, or by a repository made afterwards; the
//! queries carry no `hint`, which would make the server refuse each time
//! but cost a hinted `find_one` 1.15 times as long on the test server.
//!
//! The escape hatch is `.scan()` on the query builder: a collection scan on
//! purpose, greppable. Refusals are [`Error::Unindexed`](crate::Error::Unindexed),
//! returned before anything is sent; [`check`] runs the guard on a query of
//! your own.

mod count;
pub(crate) mod explain;
mod find;
mod find_one;
pub(crate) mod guard;
pub(crate) mod kept;
pub(crate) mod keyset;
pub(crate) mod lookup;
mod paging;
pub(crate) mod projection;
pub(crate) mod server_indexes;
mod sort;
mod stream;

pub use count::Count;
pub(crate) use find::with_session;
pub use find::{Find, DEFAULT_BATCH_SIZE};
pub use find_one::FindOne;
pub use guard::check;
pub use guard::targeting::{targeting, Targeting};
pub use keyset::{Cursor, Page};
#[doc(hidden)]
pub use projection::Projection;
pub use sort::Sort;
pub(crate) use stream::unseal_as;
pub use stream::DocStream;
pub use stream::Opener;
