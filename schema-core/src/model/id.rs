//! The compile-time rule that a document's `_id` (and each field of its
//! shard key) is one value the
//! application sets: not an `Option` (`None` is stored as `_id: null`, and the
//! second such document is a duplicate key), not an array (the server refuses
//! it; a tuple is stored as one), not `()` or `PhantomData` (null) nor a
//! free-form `Bson`, nor any of these inside a `Box`, `Arc`, `Rc` or `Cow`.
//!
//! The derive refuses these types as written; this probe catches them behind
//! a type alias. `(&IdProbe::<T>::NEW).check()` resolves to
//! [`IdRefused::check`] when `IdProbe<T>` implements it (method lookup tries
//! the receiver's own type before borrowing it again), whose bound
//! `T: SingleId` never holds and carries the message; for every other type it
//! resolves to [`IdAccepted::check`], which asks nothing.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet, LinkedList, VecDeque};
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

use crate::model::bounded::BoundedCollection;

/// A zero-sized stand-in for the `_id` type `T`.
#[doc(hidden)]
pub struct IdProbe<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> IdProbe<T> {
    /// The probe.
    pub const NEW: Self = IdProbe(PhantomData);
}

/// Implemented by no type: the bound that reports a refused `_id` type.
#[diagnostic::on_unimplemented(
    message = "a document's `_id` cannot be `{Self}`: it may be null or holds several values",
    label = "`_id` is `{Self}`",
    note = "`_id` is one value that the application sets: `None` is stored as `_id: null` and the second such document fails with a duplicate key error (E11000); the server refuses an array `_id`",
    note = "use a single value such as `ObjectId` (set with `ObjectId::new()`), a `String` or a `#[derive(Embedded)]` struct"
)]
pub trait SingleId {}

/// Implemented by no type: the bound that reports a refused shard key
/// field type (the same types as `_id`'s; see [`ShardKey`](crate::ShardKey)).
#[diagnostic::on_unimplemented(
    message = "a shard key field cannot be `{Self}`: it may be null or hold several values",
    label = "a shard key field of type `{Self}`",
    note = "every document holds one value of each shard key field: MongoDB refuses an array in a shard key, and documents with `null` all land in one chunk that never splits",
    note = "use a single value such as a `String`, an integer, an `ObjectId` or a `DateTime`, or take the field out of `shard_key(...)`"
)]
pub trait SingleShardValue {}

/// The types refused as `_id` (and as a shard key field).
#[doc(hidden)]
pub trait IdRefused {
    /// The refused `_id` type.
    type Id: ?Sized;
    /// Fails to type-check: `Self::Id` is never `SingleId`.
    fn check(&self)
    where
        Self::Id: SingleId,
    {
    }
    /// Fails to type-check: `Self::Id` is never `SingleShardValue`.
    fn check_shard_key(&self)
    where
        Self::Id: SingleShardValue,
    {
    }
}

/// Every other type.
#[doc(hidden)]
pub trait IdAccepted {
    /// Asks nothing.
    fn check(&self) {}
    /// Asks nothing.
    fn check_shard_key(&self) {}
}

impl<T: ?Sized> IdAccepted for &IdProbe<T> {}

macro_rules! refused {
    ($(<$($p:ident),*> $t:ty),* $(,)?) => {
        $(impl<$($p),*> IdRefused for IdProbe<$t> {
            type Id = $t;
        })*
    };
}

refused!(
    <T> Option<T>,
    <T> Vec<T>,
    <T> VecDeque<T>,
    <T> LinkedList<T>,
    <T, S> HashSet<T, S>,
    <T> BTreeSet<T>,
    <T> [T],
    <> (),
    <T> PhantomData<T>,
    <> bson::Bson,
    <A> (A,),
    <A, B> (A, B),
    <A, B, C> (A, B, C),
    <A, B, C, D> (A, B, C, D),
    <A, B, C, D, E> (A, B, C, D, E),
    <A, B, C, D, E, F> (A, B, C, D, E, F),
    <A, B, C, D, E, F, G> (A, B, C, D, E, F, G),
    <A, B, C, D, E, F, G, H> (A, B, C, D, E, F, G, H),
    <A, B, C, D, E, F, G, H, I> (A, B, C, D, E, F, G, H, I),
    <A, B, C, D, E, F, G, H, I, J> (A, B, C, D, E, F, G, H, I, J),
    <A, B, C, D, E, F, G, H, I, J, K> (A, B, C, D, E, F, G, H, I, J, K),
    <A, B, C, D, E, F, G, H, I, J, K, L> (A, B, C, D, E, F, G, H, I, J, K, L),
);

impl<T, const N: usize> IdRefused for IdProbe<[T; N]> {
    type Id = [T; N];
}

// Serde stores a `Box`, `Arc`, `Rc` or `Cow` as what it holds.
macro_rules! refused_inside {
    ($($wrapper:ident<$($lt:lifetime,)? T>),* $(,)?) => {
        $(impl<$($lt,)? T: ?Sized $(+ ToOwned + $lt)?> IdRefused for IdProbe<$wrapper<$($lt,)? T>>
        where
            IdProbe<T>: IdRefused,
        {
            type Id = <IdProbe<T> as IdRefused>::Id;
        })*
    };
}

refused_inside!(Box<T>, Arc<T>, Rc<T>, Cow<'a, T>);

/// The rule that a `#[reference(to = M)]` field holds `M`'s `_id`, or an
/// `Option` of it (a child that may have no parent, stored as null).
#[diagnostic::on_unimplemented(
    message = "`#[reference]` field holds `{Self}`, but `{M}`'s `_id` is `{Id}`",
    label = "not the `_id` type of `{M}`",
    note = "a reference holds its target's `_id`: write the field as `{Id}`, or `Option<{Id}>` for a child that may have no parent; with another type, `parents_of` and `children` find nothing"
)]
#[doc(hidden)]
pub trait HoldsTargetId<M: ?Sized, Id> {}

#[diagnostic::do_not_recommend]
impl<T, M: ?Sized> HoldsTargetId<M, T> for T {}

#[diagnostic::do_not_recommend]
impl<T, M: ?Sized> HoldsTargetId<M, T> for Option<T> {}

/// Holds when a reference field of type `T` holds `M`'s `_id` type `Id`.
#[doc(hidden)]
pub const fn assert_reference_id<T: HoldsTargetId<M, Id>, M: ?Sized, Id>() {}

/// The rule that the items of a `#[many_to_many(to = M)]` array are `M`'s
/// `_id`s.
#[diagnostic::on_unimplemented(
    message = "`#[many_to_many]` field holds ids of type `{Self}`, but `{M}`'s `_id` is `{Id}`",
    label = "not an array of `{M}` ids",
    note = "an id array holds its target's `_id`s: write the field as an array of `{Id}`; with another type, the link helpers and `verify` match no document"
)]
#[doc(hidden)]
pub trait IsTargetId<M: ?Sized, Id> {}

#[diagnostic::do_not_recommend]
impl<T, M: ?Sized> IsTargetId<M, T> for T {}

/// Holds when the items of the id array `C` are `M`'s `_id` type `Id`.
#[doc(hidden)]
pub const fn assert_link_ids<C: ?Sized + BoundedCollection, M: ?Sized, Id>()
where
    C::Item: IsTargetId<M, Id>,
{
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The accepted types resolve to the bound-free `check` (this compiles).
    #[test]
    fn single_values_are_accepted() {
        (&IdProbe::<bson::oid::ObjectId>::NEW).check();
        (&IdProbe::<String>::NEW).check();
        (&IdProbe::<i64>::NEW).check();
    }
}
