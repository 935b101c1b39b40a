//! Aggregations whose stages and output rows the compiler checks:
//! [`Repo::aggregate`](crate::Repo::aggregate) builds a pipeline on typed
//! paths ([`Aggregate`]), and `#[derive(Row)]` declares what a `group`
//! yields ([`Row`]).
//!
//! # Rows
//!
//! A row type names the model it groups (`#[row(of = Order)]`) and, on
//! every field, where the field comes from, by the model's field names
//! (nested ones through dots):
//!
//! ```text
//! #[group(key = customer.email)]          a group key (one or several fields)
//! #[group(key = created_at, trunc = day)] a date truncated to year, quarter, month,
//!                                         week, day, hour or minute ($dateTrunc)
//! #[group(key = at, trunc)]               a time series' time field truncated to the
//!                                         granularity it declares (hours: hour)
//! #[group(count)]                         the documents of the group: i64
//! #[group(sum = total)]                   i64 for integers, f64 for floats
//! #[group(sum = items.qty * items.unit_price)]
//! #[group(avg = total)]                   f64 (Option<f64> of an Option field)
//! #[group(min = total)], max, first, last the field's own type (an Option stays one)
//! #[group(push = title, max = 5)]         the first 5 values: Vec<T> ($firstN)
//! #[group(top = title, by(at = desc), max = 5)]
//!                                         of the first 5 by a sort ($topN; `bottom`: $bottomN)
//! #[group(add_to_set = tag, max = 10)]    distinct values, cut to 10 ($addToSet, $slice)
//! ```
//!
//! Every array accumulator takes a `max`. A row is one document, so `max`
//! times the most bytes an item takes must fit in 16 MiB: numbers, dates
//! and `ObjectId`s have a known size, any other item (a `String`, a
//! sub-document) declares its own with `bytes = N`; a row that could be
//! larger is refused before anything is sent, with the arithmetic in
//! [`Error::AggregateRefused`](crate::Error::AggregateRefused). The derive
//! also gives the row field constants (`Revenue::FIELDS.total`), with which
//! the stages after the group filter and sort the rows.
//!
//! # The pipeline
//!
//! `.filter(..)` (`$match`), `.sort(..)`, `.limit(n)`, `.skip(n)` on the
//! typed fields of what flows at that point; `.unwind(Order::FIELDS.items)`
//! of a bounded array of sub-documents; `.group::<Row>()`; after it, the
//! same stages on the row's fields; `.count()`. `.project::<View>()`
//! (`$project` of a `#[derive(Projection)]` view) leaves only the view's
//! fields to name; `.lookup(Post::FIELDS.author_id)` joins each document
//! with the one its `#[reference]` points at (`$lookup` on `_id`, as
//! the joins ([`WithParent`](crate::WithParent)) send). A stage the builder does not
//! know goes in through [`unchecked_stage`](Aggregate::unchecked_stage).
//! The leading `$match` and `$sort` stages pass the index guard as a
//! `find` does ([`Error::Unindexed`](crate::Error::Unindexed) before
//! anything is sent, `.scan()` to read the collection on purpose), and
//! [`explain`](Aggregate::explain) gives their plan.
//!
//! # Versioned models
//!
//! A pipeline reads documents as they are stored, and a stored document of
//! an earlier shape is upgraded only when a query reads it into the model:
//! a `$match`, a `$group` or a `$project` would see it as it was. On a
//! model that names earlier shapes (`migrate_from`), a pipeline is
//! therefore sent only once none is stored: before sending, one query on
//! the index of the version field looks for a document at another
//! version, and one found refuses the pipeline
//! ([`Error::AggregateRefused`](crate::Error::AggregateRefused), naming
//! the version), until `Repo::migrate` has upgraded them all.

mod flow;
mod merge;
mod pipeline;
mod row;
mod rules;
mod sealed;
mod stored;

pub use flow::{
    Docs, FilterOn, Flow, Groupable, JoinThrough, Joined, Projected, Rows, SortOn, Unchecked,
    Unwound,
};
pub use merge::WritesAs;
pub use pipeline::Aggregate;
pub use row::{Row, RowSource, RowSpec};
pub use rules::{
    check, ArrayOf, AvgInto, CountInto, Date, ItemBytes, Numeric, SameAs, SumInto, Times,
};
