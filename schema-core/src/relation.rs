//! Relationships a model declares, as data: what setup, `verify` and the
//! relationship helpers read; and the helpers themselves:
//!
//! - [`reference`](mod@reference): children that point at their parent with an indexed
//!   `#[reference(index)]`: keyset pages on the index, counts, and the
//!   parents of a page in one query.
//! - [`many_to_many`]: `#[many_to_many]` id arrays: link and unlink (both
//!   sides in one transaction when two-sided), `verify` and `repair`.
//! - [`through`]: many-to-many with no bound on either side, one edge
//!   document per pair in a collection of its own.

pub mod many_to_many;
pub mod reference;
pub mod through;

pub use many_to_many::{Asymmetry, AsymmetryKind, Links, OverMax, RepairReport, VerifyReport};
pub use reference::{Children, Cursor, Page};
pub use through::Through;

use crate::index::Direction;

/// One relationship declared on a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Relation {
    /// `#[embed(max = N)]`: an array or map stored inside the document.
    Embed {
        /// Rust field name.
        field: &'static str,
        /// Stored field name.
        stored: &'static str,
        /// The most items it may hold.
        max: u32,
    },
    /// `#[reference(index)]`: the `_id` of another document, held by the child.
    Reference {
        /// Rust field name.
        field: &'static str,
        /// Stored field name.
        stored: &'static str,
        /// The target's collection, when the target type is named.
        target: Option<&'static str>,
        /// The sort key of the compound index, if any.
        sort: Option<(&'static str, Direction)>,
    },
    /// `#[many_to_many(...)]`: an array of `_id`s of another model.
    ManyToMany {
        /// Rust field name.
        field: &'static str,
        /// Stored field name.
        stored: &'static str,
        /// The target's collection.
        target: &'static str,
        /// Stored name of the inverse array on the target (two-sided only).
        inverse: Option<&'static str>,
        /// The most ids the array may hold.
        max: u32,
    },
}

impl Relation {
    /// The Rust name of the field that declares it.
    pub fn field(&self) -> &'static str {
        match self {
            Relation::Embed { field, .. }
            | Relation::Reference { field, .. }
            | Relation::ManyToMany { field, .. } => field,
        }
    }

    /// Whether writing it needs a multi-document transaction.
    pub fn needs_transaction(&self) -> bool {
        matches!(
            self,
            Relation::ManyToMany {
                inverse: Some(_),
                ..
            }
        )
    }
}
