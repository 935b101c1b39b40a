//! The relationship helpers, over the relationships a model declares
//! ([`Relation`], model data defined with the traits in
//! [`model`](crate::model), which setup, `verify` and the helpers read):
//!
//! - [`reference`](mod@reference): children that point at their parent with an indexed
//!   `#[reference(index)]`: keyset pages on the index, counts, and the
//!   parents of a page in one query.
//! - [`combine`](many_to_many::combine): concurrent links into one hot document, combined into one
//!   transaction.
//! - [`copies`]: declared extended references (`#[copy(from = ..., field =
//!   ...)]`), kept in sync with their sources in one transaction, verified
//!   and repaired.
//! - [`delete`](mod@delete): deleting a parent by the delete policies its
//!   children's references declare (`on_delete`).
//! - [`join`]: a page of children with their parents, or a parent with its
//!   newest children, in one `aggregate` (`$lookup` on the parent's `_id`).
//! - [`many_to_many`]: `#[many_to_many]` id arrays: link and unlink (both
//!   sides in one transaction when two-sided), `verify` and `repair`.
//! - [`through`]: many-to-many with no bound on either side, one edge
//!   document per pair in a collection of its own.

pub(crate) mod copies;
pub(crate) mod copy_types;
pub(crate) mod delete;
pub(crate) mod join;
pub(crate) mod many_to_many;
pub(crate) mod reference;
pub(crate) mod through;
pub(crate) mod verify;

pub(crate) use copies::CopyReport;
pub use many_to_many::{Asymmetry, AsymmetryKind, Links, OverMax, RepairReport, VerifyReport};
pub use reference::Children;
pub use through::Through;

// Declared relationships are model data (what `Document::relations`
// returns): they are defined with the model traits, so that the core helpers
// read them without depending on the relationship helpers.
pub use crate::model::Relation;
