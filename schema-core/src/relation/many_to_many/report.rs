//! What [`Links::verify`](super::Links::verify) finds ([`VerifyReport`]:
//! [`Asymmetry`] edges, arrays [`OverMax`]) and what
//! [`Links::repair`](super::Links::repair) does ([`RepairReport`]).

use bson::Bson;

/// An edge recorded by one side only, or pointing at a missing document.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Asymmetry {
    /// The `_id` of the `M` document (the side that declares the field).
    pub left: Bson,
    /// The `_id` of the `R` document.
    pub right: Bson,
    /// What is wrong.
    pub kind: AsymmetryKind,
}

/// What is wrong with an edge. `verify` may learn to tell more kinds
/// apart, so a `match` needs a `_` arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AsymmetryKind {
    /// The left lists the right, which exists but does not list the left.
    MissingOnRight,
    /// The right lists the left, which exists but does not list the right.
    MissingOnLeft,
    /// The left lists a right that does not exist.
    RightMissing,
    /// The right lists a left that does not exist (two-sided only).
    LeftMissing,
}

/// An id array holding more ids than its max (only a write that bypassed
/// both the helpers and the validator can do this).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OverMax {
    /// Collection.
    pub collection: &'static str,
    /// The document's `_id`.
    pub id: Bson,
    /// Stored field name.
    pub field: &'static str,
    /// How many ids it holds.
    pub len: usize,
    /// Its max.
    pub max: u32,
}

/// What [`Links::verify`](super::Links::verify) found.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct VerifyReport {
    /// Distinct edges recorded by either side.
    pub edges: usize,
    /// Edges not recorded by both sides.
    pub asymmetric: Vec<Asymmetry>,
    /// Arrays over their max.
    pub over_max: Vec<OverMax>,
}

impl VerifyReport {
    /// No asymmetric edge and no array over its max.
    pub fn is_consistent(&self) -> bool {
        self.asymmetric.is_empty() && self.over_max.is_empty()
    }
}

/// What [`Links::repair`](super::Links::repair) did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RepairReport {
    /// Edges completed by adding the missing half.
    pub completed: usize,
    /// Half-edges removed (the other document is missing, or its array is full).
    pub removed: usize,
}
