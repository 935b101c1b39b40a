//! The field constant of a `#[many_to_many]` id array: [`LinkField`], its
//! bound and, two-sided, the inverse array on the other side.

use std::marker::PhantomData;

use super::Field;

/// A `#[many_to_many]` id array of model `M`, of collection type `C`, whose
/// items are `_id`s of `R`.
pub struct LinkField<M, C, R> {
    field: Field<M, C>,
    max: u32,
    inverse: Option<fn() -> &'static str>,
    _target: PhantomData<fn() -> R>,
}

impl<M, C, R> LinkField<M, C, R> {
    /// An id array stored under `name` with at most `max` ids; `inverse` gives
    /// the stored name of the array on the other side when two-sided.
    pub const fn new(name: &'static str, max: u32, inverse: Option<fn() -> &'static str>) -> Self {
        LinkField {
            field: Field::new(name),
            max,
            inverse,
            _target: PhantomData,
        }
    }
    /// The stored name.
    pub const fn name(&self) -> &'static str {
        self.field.name
    }
    /// The most ids the array may hold.
    pub const fn max(&self) -> u32 {
        self.max
    }
    /// Whether the other side keeps the inverse array.
    pub const fn is_two_sided(&self) -> bool {
        self.inverse.is_some()
    }
    /// The stored name of the inverse array on the other side (two-sided only).
    pub fn inverse_name(&self) -> Option<&'static str> {
        self.inverse.map(|f| f())
    }
    /// The plain field, for filters.
    pub const fn field(&self) -> Field<M, C> {
        self.field
    }
}

impl<M, C, R> Clone for LinkField<M, C, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, C, R> Copy for LinkField<M, C, R> {}

/// A link field filters like its plain field:
/// `Student::FIELDS.course_ids.contains(&id)`.
impl<M, C, R> std::ops::Deref for LinkField<M, C, R> {
    type Target = Field<M, C>;
    fn deref(&self) -> &Self::Target {
        &self.field
    }
}
