//! What `#[derive(Row)]` parses into: the row, its fields and their sources.

use proc_macro2::{Span, TokenStream};
use syn::{Ident, Path};

pub(super) struct RowInput<'a> {
    pub(super) of: Path,
    /// The row is a model itself (`#[document(..)]` beside it): its field
    /// constants are the model's, and `merge_into` writes it.
    pub(super) model: bool,
    pub(super) krate: TokenStream,
    pub(super) fields: Vec<RowField<'a>>,
}

pub(super) struct RowField<'a> {
    pub(super) ident: &'a Ident,
    pub(super) ty: &'a syn::Type,
    pub(super) stored: String,
    pub(super) source: Source,
}

/// A model path named in an attribute: its Rust field names, dotted.
pub(super) type ModelPath = Vec<Ident>;

/// What an accumulator reads: one path, or the product of two.
pub(super) enum Operand {
    Path(ModelPath),
    Product(ModelPath, ModelPath),
}

/// Where a row field comes from.
pub(super) enum Source {
    Key(ModelPath, Option<Trunc>),
    Count,
    /// `$sum` or `$avg` of an operand.
    Numeric(&'static str, Operand),
    /// `$min`, `$max`, `$first`, `$last`.
    Same(&'static str, ModelPath),
    /// An array accumulator: `push`, `top`, `bottom`, `add_to_set`.
    Array {
        kind: ArrayKind,
        path: ModelPath,
        max: u32,
        bytes: Option<u64>,
        by: Vec<(ModelPath, i32)>,
        span: Span,
    },
}

/// How a date key is truncated: to a unit, or (`trunc` alone) to the
/// granularity a time series declares.
pub(super) enum Trunc {
    Unit(String),
    Declared,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ArrayKind {
    Push,
    Top,
    Bottom,
    AddToSet,
}
