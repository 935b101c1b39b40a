//! The field constant of a `#[reference(index)]` field: [`RefField`], the
//! `_id` of another model, with the sort key of its index.

use std::marker::PhantomData;

use super::Field;
use crate::model::index::Direction;

/// A `#[reference(index)]` field of model `M` holding a `T` that is the `_id`
/// of an `R` (`R = ()` when the target type is not named).
pub struct RefField<M, T, R> {
    field: Field<M, T>,
    sort: Option<(&'static str, Direction)>,
    _target: PhantomData<fn() -> R>,
}

impl<M, T, R> RefField<M, T, R> {
    /// A reference stored under `name`, indexed with `sort` as its second key.
    pub const fn new(name: &'static str, sort: Option<(&'static str, Direction)>) -> Self {
        RefField {
            field: Field::new(name),
            sort,
            _target: PhantomData,
        }
    }
    /// The stored name.
    pub const fn name(&self) -> &'static str {
        self.field.name
    }
    /// The sort key that makes the reference index compound, if any.
    pub const fn sort(&self) -> Option<(&'static str, Direction)> {
        self.sort
    }
    /// The plain field, for filters.
    pub const fn field(&self) -> Field<M, T> {
        self.field
    }
}

impl<M, T, R> Clone for RefField<M, T, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, T, R> Copy for RefField<M, T, R> {}

/// A reference field filters like its plain field:
/// `Post::FIELDS.author_id.eq(&id)`, `.is_in(...)`, `.set(...)`.
impl<M, T, R> std::ops::Deref for RefField<M, T, R> {
    type Target = Field<M, T>;
    fn deref(&self) -> &Self::Target {
        &self.field
    }
}
