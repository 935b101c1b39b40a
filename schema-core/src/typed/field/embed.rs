//! The field constant of an `#[embed(max = N)]` array or map:
//! [`EmbedField`], its bound and, with the subset pattern, which items it
//! [`Keep`]s embedded.

use super::Field;
use crate::typed::path::{Below, Descend, Nested, Prefix};

/// Which items an `#[embed(max = N, keep = "...")]` array keeps embedded
/// when it is full (the subset pattern: the rest live in a `history` collection).
/// Other orders may come, so a `match` needs a `_` arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Keep {
    /// `keep = "newest"`: the newest `max` items; older ones leave the array.
    Newest,
    /// `keep = "oldest"`: the first `max` items; later ones are not embedded.
    Oldest,
}

/// An `#[embed(max = N)]` array or map field of model `M` of type `C`, at
/// the stored path `P` (see [`Field`]).
pub struct EmbedField<M, C, P = ()> {
    field: Field<M, C, P>,
    max: u32,
    keep: Option<Keep>,
    history: Option<fn() -> &'static str>,
}

impl<M, C, P> EmbedField<M, C, P> {
    /// A bounded field stored under `name` with at most `max` items.
    pub const fn new(name: &'static str, max: u32) -> Self {
        EmbedField {
            field: Field::new(name),
            max,
            keep: None,
            history: None,
        }
    }
    /// The subset pattern: which items stay embedded, and the collection
    /// (given as a fn returning its name) that holds the full history.
    pub const fn with_subset(mut self, keep: Keep, history: Option<fn() -> &'static str>) -> Self {
        self.keep = Some(keep);
        self.history = history;
        self
    }
    /// `keep = "..."`, when the field uses the subset pattern.
    pub const fn keep(&self) -> Option<Keep> {
        self.keep
    }
    /// The collection of the `history = Model` that holds every item, if any.
    pub fn history_collection(&self) -> Option<&'static str> {
        self.history.map(|f| f())
    }
    /// The stored name.
    pub const fn name(&self) -> &'static str {
        self.field.name
    }
    /// The most items the field may hold.
    pub const fn max(&self) -> u32 {
        self.max
    }
    /// The plain field, for filters.
    pub const fn field(&self) -> Field<M, C, P> {
        self.field
    }
    /// The same field without its path type (the bounded-array helpers take
    /// this one).
    pub const fn erase(self) -> EmbedField<M, C> {
        EmbedField {
            field: Field::new(self.field.name),
            max: self.max,
            keep: self.keep,
            history: self.history,
        }
    }
}

impl<M, C, P> Clone for EmbedField<M, C, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, C, P> Copy for EmbedField<M, C, P> {}

/// A bounded field filters like its plain field:
/// `Post::FIELDS.tags.contains(&tag)`.
impl<M, C, P> std::ops::Deref for EmbedField<M, C, P> {
    type Target = Field<M, C, P>;
    fn deref(&self) -> &Self::Target {
        &self.field
    }
}

impl<M: 'static, T: Nested, P: Prefix> Descend for EmbedField<M, T, P> {
    type Target = T::Fields<M, Below<P, T::Count>>;
}
