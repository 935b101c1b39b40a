//! Deleting a parent by the delete policies its children declare
//! (`#[reference(index, to = Parent, on_delete = "...")]`, see
//! [`delete_policy`](crate::model::delete_policy)):
//! [`Schema::delete`](crate::Schema::delete), with a report and a batched
//! mode, and the walk [`Repo::delete`](crate::Repo::delete) runs inside its
//! transaction. The policies are those of every model that declares one
//! toward the parent's type (registered at link time), so a child model
//! missing from the schema is not skipped:
//! [`Schema::delete`](crate::Schema::delete) refuses such a delete before
//! anything is sent.
//!
//! **Order.** For the document to delete, its dependents first, by policy:
//! every `restrict` is counted first (a child found refuses the delete
//! with [`Error::Restricted`](crate::Error::Restricted) before anything is
//! written), then each `set_null`/`unset` reference is cleared and each
//! `cascade` child deleted, each child only after its own dependents, by
//! the same rules; the parent last. So at every point between two writes every remaining
//! child still has its parent: an interrupted delete leaves no dangling
//! reference, and running it again finishes it.
//!
//! **Queries.** Children are found through their reference's index
//! (`{ref: {$in: [...]}}`, `_id` only, a batch at a time), cleared and
//! deleted by `_id`; before anything is sent, every child collection the
//! delete can reach is asked once (`listIndexes`) for an index led by the
//! reference, else [`Error::MissingIndex`](crate::Error::MissingIndex): no
//! query of a delete scans a collection.
//!
//! **Transactions.** By default the whole family goes in one transaction
//! (the helpers' retry and `{w: "majority", j: true}`): all or nothing.
//! A family too large for one transaction goes in
//! [`batched`](Delete::batched) mode: each write (at most `size` children
//! cleared or deleted) is a command of its own, in the order above, so an
//! interruption leaves a consistent state and a rerun completes the rest,
//! never touching a document outside the family. A `restrict` found deep in
//! a batched cascade stops it there: what was deleted stays deleted, the
//! parent stays.
//!
//! A child inserted while its parent is being deleted may outlive it (no
//! write of the delete conflicts with an insert); `verify`-style checks of
//! references are not part of this module.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use schema_core::Schema;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[document(collection = "users")]
//! # struct User { #[serde(rename = "_id")] id: String }
//! #[derive(Document, Serialize, Deserialize)]
//! #[serde(rename_all = "camelCase")]
//! #[document(collection = "posts")]
//! struct Post {
//!     #[serde(rename = "_id")]
//!     id: String,
//!     #[reference(index, to = User, on_delete = "cascade")]
//!     author_id: String,
//! }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let schema = Schema::new().with::<User>().with::<Post>();
//! let id = "ada".to_owned();
//! let deleted = schema.delete::<User>(&db, &id).await?; // ada and her posts, one transaction
//! println!("{deleted}");
//! let deleted = schema.delete::<User>(&db, &id).batched(1_000).await?; // a large family
//! # Ok(())
//! # }
//! ```

mod builder;
mod report;
mod walk;

pub use builder::Delete;
pub use report::Deleted;
pub use walk::DEFAULT_DELETE_BATCH;
pub(crate) use walk::{before_delete, require_indexes};
