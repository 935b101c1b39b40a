//! The compile-time rule that no embedded array or map grows without bound.
//!
//! Every field of a `#[derive(Document)]` or `#[derive(Embedded)]` type must be
//! [`Bounded`], unless it carries `#[embed(max = N)]` (then its *items* must be
//! bounded) or is a many-to-many id array (bounded by its own `max`).
//! Collections (`Vec`, `VecDeque`, sets, maps, `bson::Array`) deliberately do
//! not implement [`Bounded`], so a bare one fails to compile with the message
//! below, at any depth of nesting.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

/// A value whose stored size cannot grow without bound.
///
/// Implemented for scalars, for `Option`/`Box` of bounded values, for
/// fixed-size arrays, and by `#[derive(Embedded)]` for sub-documents whose
/// own fields are all bounded.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not known to be bounded: an array or map inside a document needs `#[embed(max = N)]`, and a struct or enum stored inside one needs `#[derive(Embedded)]`",
    label = "unbounded array: add `#[embed(max = N)]`, or store the children in their own collection and point at the parent with `#[reference(index)]`",
    note = "add `#[embed(max = N)]` to the field, or store the children in their own collection and point at the parent with `#[reference(index)]`",
    note = "a struct or enum stored inside a document must `#[derive(Embedded)]`, so that its own fields are checked too"
)]
pub trait Bounded {}

macro_rules! bounded {
    ($($t:ty),* $(,)?) => { $(impl Bounded for $t {})* };
}

bounded!(
    bool,
    char,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64,
    String,
    &'static str,
    (),
    bson::oid::ObjectId,
    bson::DateTime,
    bson::Decimal128,
    bson::Timestamp,
    bson::Uuid,
    bson::Binary,
    bson::Regex,
    bson::JavaScriptCodeWithScope,
    // A single free-form value: treated as a scalar, its contents are not checked.
    bson::Bson,
    std::time::SystemTime,
    std::time::Duration,
);

impl<T: Bounded> Bounded for Option<T> {}
impl<T: Bounded + ?Sized> Bounded for Box<T> {}
impl<T: Bounded + ?Sized> Bounded for std::sync::Arc<T> {}
impl<T: Bounded, const N: usize> Bounded for [T; N] {}
impl<A: Bounded, B: Bounded> Bounded for (A, B) {}
impl<A: Bounded, B: Bounded, C: Bounded> Bounded for (A, B, C) {}

/// An array or map field that may carry `#[embed(max = N)]` or be a
/// many-to-many id array: the derive checks that its `Item` is [`Bounded`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an array or map, so it cannot carry `#[embed(max = N)]` or `#[many_to_many]`",
    label = "not an array or map",
    note = "`#[embed(max = N)]` bounds an array or map field (Vec, VecDeque, HashSet, BTreeSet, HashMap, BTreeMap, bson::Array); remove it from a single value"
)]
pub trait BoundedCollection {
    /// The type of one stored item (for maps, the value).
    type Item;
}

impl<T> BoundedCollection for Vec<T> {
    type Item = T;
}
impl<T> BoundedCollection for VecDeque<T> {
    type Item = T;
}
impl<T, S> BoundedCollection for HashSet<T, S> {
    type Item = T;
}
impl<T> BoundedCollection for BTreeSet<T> {
    type Item = T;
}
impl<K, V, S> BoundedCollection for HashMap<K, V, S> {
    type Item = V;
}
impl<K, V> BoundedCollection for BTreeMap<K, V> {
    type Item = V;
}
impl<C: BoundedCollection> BoundedCollection for Option<C> {
    type Item = C::Item;
}
impl<C: BoundedCollection> BoundedCollection for Box<C> {
    type Item = C::Item;
}

/// Generated code calls these to attach the rule to a field's span.
#[doc(hidden)]
pub const fn assert_bounded<T: Bounded + ?Sized>() {}

#[doc(hidden)]
pub const fn assert_bounded_items<C>()
where
    C: BoundedCollection + ?Sized,
    C::Item: Bounded,
{
}
