//! The compile-time rule that no stored value grows without bound.
//!
//! Every field of a `#[derive(Document)]` or `#[derive(Embedded)]` type must be
//! [`Bounded`], unless it carries `#[embed(max = N)]` (then its *items* must be
//! bounded), is a many-to-many id array (bounded by its own `max`), or opts out
//! with `#[embed(unbounded = "reason")]`.
//!
//! What is bounded: scalars, strings, single binary values, `Option`/`Box`/
//! `Arc`/`Rc`/`Cow` of bounded values, `PhantomData`, fixed-size arrays and
//! tuples (up to 12 elements) of bounded values, and `#[derive(Embedded)]`
//! types, whose own fields are checked the same way.
//!
//! What is not, each with its own message naming what it is:
//! - arrays (`Vec`, `VecDeque`, `LinkedList`, sets, slices, `bson::Array`) and
//!   maps (`HashMap`, `BTreeMap`): they need `#[embed(max = N)]` on the field;
//!   inside another array, map, tuple or fixed-size array they need their own
//!   sub-document, since `#[embed(max = N)]` bounds the outer one only;
//! - free-form values (`bson::Document`, `bson::Bson`,
//!   `bson::JavaScriptCodeWithScope`): they can hold arrays of any length and
//!   nothing describes them;
//! - structs and enums without `#[derive(Embedded)]`;
//! - recursive types (a sub-document that holds itself, directly or through
//!   other sub-documents): nothing bounds their depth.
//!
//! The kind-specific messages come from never-implemented marker traits named
//! in the `where` clause of each collection's impl; the marker's `Self` is the
//! position ([`AsField`] or [`AsItem`]) so that the compiler reports the
//! marker's message rather than the generic one.
//!
//! Recursion is found by walking the sub-documents with a depth budget
//! ([`Nesting`]): every `#[derive(Embedded)]` type spends one level, and a
//! walk that gets [`MAX_NESTING`] levels deep is taken to be a recursive
//! type. Each non-generic `#[derive(Embedded)]` type walks itself; a
//! recursion reached only through generic sub-documents, or through a field
//! that opts out of the rule (`#[embed(unbounded)]`, `#[serde(with)]`), is
//! caught when its validator is built instead (see
//! [`crate::model::validator::depth::schema_of`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::marker::PhantomData;
use std::num::{
    NonZeroI128, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroI8, NonZeroIsize, NonZeroU128,
    NonZeroU16, NonZeroU32, NonZeroU64, NonZeroU8, NonZeroUsize,
};
use std::rc::Rc;
use std::sync::Arc;

/// A value whose stored size cannot grow without bound, wherever it is
/// stored: the union of [`BoundedAt<AsField>`] and [`BoundedAt<AsItem>`],
/// implemented for every type that is both.
///
/// `#[derive(Embedded)]` implements it for a sub-document, after checking
/// its fields; a type from another crate goes through
/// `#[embed(unbounded = "reason")]` on the field instead.
pub trait Bounded: BoundedAt<AsField> + BoundedAt<AsItem> {}

impl<T: ?Sized + BoundedAt<AsField> + BoundedAt<AsItem>> Bounded for T {}

/// The position a value is checked at: a document field (directly or through
/// `Option`/`Box`).
#[doc(hidden)]
pub struct AsField;

/// The position a value is checked at: an item of an array or map, or an
/// element of a tuple or fixed-size array.
#[doc(hidden)]
pub struct AsItem;

/// A value whose stored size is bounded at position `Place`. The messages of
/// the collections that are not come from their marker traits below; this
/// one is for every type that implements nothing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not known to be bounded: it is a struct or enum without `#[derive(Embedded)]`, or a type from another crate",
    label = "not a `#[derive(Embedded)]` type",
    note = "a struct or enum stored inside a document must `#[derive(Embedded)]`, so that its own fields are checked too",
    note = "a type from another crate that is one stored value can be kept with `#[embed(unbounded = \"reason\")]` on the field"
)]
pub trait BoundedAt<Place> {}

/// Marker never implemented: an array stored as a field, with no bound.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` is an array with no bound: it can grow until the document reaches 16 MiB",
    label = "an array with no bound",
    note = "add `#[embed(max = N)]` to the field, or store the items in their own collection and point at the parent with `#[reference(index)]`"
)]
pub trait ArrayWithoutMax<T: ?Sized> {}

/// Marker never implemented: a map stored as a field, with no bound.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` is a map with no bound: it can grow until the document reaches 16 MiB",
    label = "a map with no bound",
    note = "add `#[embed(max = N)]` to the field (the validator then caps its keys), or store the entries in their own collection and point at the parent with `#[reference(index)]`"
)]
pub trait MapWithoutMax<T: ?Sized> {}

/// Marker never implemented: an array inside an array, map, tuple or
/// fixed-size array.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` is an array inside another array, map, tuple or fixed-size array, with no bound of its own",
    label = "the inner array needs its own sub-document",
    note = "`#[embed(max = N)]` on the field bounds the outer collection only: make the inner array a field of a `#[derive(Embedded)]` struct, with its own `#[embed(max = N)]`, and store that struct here"
)]
pub trait NestedArray<T: ?Sized> {}

/// Marker never implemented: a map inside an array, map, tuple or fixed-size
/// array.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` is a map inside another array, map, tuple or fixed-size array, with no bound of its own",
    label = "the inner map needs its own sub-document",
    note = "`#[embed(max = N)]` on the field bounds the outer collection only: make the inner map a field of a `#[derive(Embedded)]` struct, with its own `#[embed(max = N)]`, and store that struct here"
)]
pub trait NestedMap<T: ?Sized> {}

/// Marker never implemented: a free-form document or value.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{T}` is a free-form document or value: it can hold arrays of any length, and nothing checks them",
    label = "a free-form document or value",
    note = "describe it with a `#[derive(Embedded)]` struct or enum that lists its fields, or keep it free-form with `#[embed(unbounded = \"reason\")]` on the field (no bound, no rule)"
)]
pub trait FreeForm<T: ?Sized> {}

macro_rules! bounded {
    ($($t:ty),* $(,)?) => {
        $(
            impl<P> BoundedAt<P> for $t {}
            impl<B> Nesting<B> for $t {
                const WALK: () = ();
            }
        )*
    };
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
    NonZeroI8,
    NonZeroI16,
    NonZeroI32,
    NonZeroI64,
    NonZeroI128,
    NonZeroIsize,
    NonZeroU8,
    NonZeroU16,
    NonZeroU32,
    NonZeroU64,
    NonZeroU128,
    NonZeroUsize,
    str,
    String,
    (),
    bson::oid::ObjectId,
    bson::DateTime,
    bson::Decimal128,
    bson::Timestamp,
    bson::Uuid,
    bson::Binary,
    bson::Regex,
    std::time::SystemTime,
    std::time::Duration,
);

impl<P> BoundedAt<P> for &'static str {}
impl<B> Nesting<B> for &'static str {
    const WALK: () = ();
}

// Stored as `null`: holds nothing.
impl<P, T: ?Sized> BoundedAt<P> for PhantomData<T> {}
impl<B, T: ?Sized> Nesting<B> for PhantomData<T> {
    const WALK: () = ();
}

// Wrappers keep the position of what they wrap.
impl<P, T: ?Sized + BoundedAt<P>> BoundedAt<P> for Box<T> {}
impl<B, T: ?Sized + Nesting<B>> Nesting<B> for Box<T> {
    const WALK: () = T::WALK;
}
impl<P, T: ?Sized + BoundedAt<P>> BoundedAt<P> for Arc<T> {}
impl<B, T: ?Sized + Nesting<B>> Nesting<B> for Arc<T> {
    const WALK: () = T::WALK;
}
impl<P, T: ?Sized + BoundedAt<P>> BoundedAt<P> for Rc<T> {}
impl<B, T: ?Sized + Nesting<B>> Nesting<B> for Rc<T> {
    const WALK: () = T::WALK;
}

impl<P, T: BoundedAt<P>> BoundedAt<P> for Option<T> {}
impl<B, T: Nesting<B>> Nesting<B> for Option<T> {
    const WALK: () = T::WALK;
}

impl<P, T: ?Sized + ToOwned + BoundedAt<P>> BoundedAt<P> for Cow<'_, T> {}
impl<B, T: ?Sized + ToOwned + Nesting<B>> Nesting<B> for Cow<'_, T> {
    const WALK: () = T::WALK;
}

// Fixed-size arrays and tuples: their elements are items.
impl<P, T: BoundedAt<AsItem>, const N: usize> BoundedAt<P> for [T; N] {}
impl<B, T: Nesting<B>, const N: usize> Nesting<B> for [T; N] {
    const WALK: () = T::WALK;
}

/// Tuples of 1 to 12 elements: each element is an item, and the walk visits
/// every element.
macro_rules! tuples {
    ($(($($t:ident),+))+) => {$(
        impl<P, $($t: BoundedAt<AsItem>),+> BoundedAt<P> for ($($t,)+) {}
        impl<Budget, $($t: Nesting<Budget>),+> Nesting<Budget> for ($($t,)+) {
            const WALK: () = {
                $(let () = $t::WALK;)+
            };
        }
    )+};
}
tuples! {
    (A)
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
    (A, B, C, D, E, F)
    (A, B, C, D, E, F, G)
    (A, B, C, D, E, F, G, H)
    (A, B, C, D, E, F, G, H, I)
    (A, B, C, D, E, F, G, H, I, J)
    (A, B, C, D, E, F, G, H, I, J, K)
    (A, B, C, D, E, F, G, H, I, J, K, L)
}

// Arrays and maps: bounded nowhere; the marker in the `where` clause gives
// the message for the position.
impl<T> BoundedAt<AsField> for Vec<T> where AsField: ArrayWithoutMax<Self> {}
impl<T> BoundedAt<AsItem> for Vec<T> where AsItem: NestedArray<Self> {}
impl<Budget, T> Nesting<Budget> for Vec<T>
where
    T: Nesting<Budget>,
{
    const WALK: () = T::WALK;
}
impl<T> BoundedAt<AsField> for VecDeque<T> where AsField: ArrayWithoutMax<Self> {}
impl<T> BoundedAt<AsItem> for VecDeque<T> where AsItem: NestedArray<Self> {}
impl<Budget, T> Nesting<Budget> for VecDeque<T>
where
    T: Nesting<Budget>,
{
    const WALK: () = T::WALK;
}
impl<T> BoundedAt<AsField> for LinkedList<T> where AsField: ArrayWithoutMax<Self> {}
impl<T> BoundedAt<AsItem> for LinkedList<T> where AsItem: NestedArray<Self> {}
impl<Budget, T> Nesting<Budget> for LinkedList<T>
where
    T: Nesting<Budget>,
{
    const WALK: () = T::WALK;
}
impl<T, S> BoundedAt<AsField> for HashSet<T, S> where AsField: ArrayWithoutMax<Self> {}
impl<T, S> BoundedAt<AsItem> for HashSet<T, S> where AsItem: NestedArray<Self> {}
impl<Budget, T, S> Nesting<Budget> for HashSet<T, S>
where
    T: Nesting<Budget>,
{
    const WALK: () = T::WALK;
}
impl<T> BoundedAt<AsField> for BTreeSet<T> where AsField: ArrayWithoutMax<Self> {}
impl<T> BoundedAt<AsItem> for BTreeSet<T> where AsItem: NestedArray<Self> {}
impl<Budget, T> Nesting<Budget> for BTreeSet<T>
where
    T: Nesting<Budget>,
{
    const WALK: () = T::WALK;
}
impl<T> BoundedAt<AsField> for [T] where AsField: ArrayWithoutMax<Self> {}
impl<T> BoundedAt<AsItem> for [T] where AsItem: NestedArray<Self> {}
impl<Budget, T> Nesting<Budget> for [T]
where
    T: Nesting<Budget>,
{
    const WALK: () = T::WALK;
}
impl<K, V, S> BoundedAt<AsField> for HashMap<K, V, S> where AsField: MapWithoutMax<Self> {}
impl<K, V, S> BoundedAt<AsItem> for HashMap<K, V, S> where AsItem: NestedMap<Self> {}
impl<Budget, K, V, S> Nesting<Budget> for HashMap<K, V, S>
where
    V: Nesting<Budget>,
{
    const WALK: () = V::WALK;
}
impl<K, V> BoundedAt<AsField> for BTreeMap<K, V> where AsField: MapWithoutMax<Self> {}
impl<K, V> BoundedAt<AsItem> for BTreeMap<K, V> where AsItem: NestedMap<Self> {}
impl<Budget, K, V> Nesting<Budget> for BTreeMap<K, V>
where
    V: Nesting<Budget>,
{
    const WALK: () = V::WALK;
}

// Free-form values: bounded nowhere, walked as leaves.
impl<P> BoundedAt<P> for bson::Document where P: FreeForm<Self> {}
impl<B> Nesting<B> for bson::Document {
    const WALK: () = ();
}
impl<P> BoundedAt<P> for bson::Bson where P: FreeForm<Self> {}
impl<B> Nesting<B> for bson::Bson {
    const WALK: () = ();
}
impl<P> BoundedAt<P> for bson::JavaScriptCodeWithScope where P: FreeForm<Self> {}
impl<B> Nesting<B> for bson::JavaScriptCodeWithScope {
    const WALK: () = ();
}

/// The most sub-documents one compile-time walk goes through before it takes
/// the type for a recursive one.
pub const MAX_NESTING: usize = 16;

/// A depth budget with no level left.
#[doc(hidden)]
pub struct NoDepthLeft;

/// A depth budget with one more level than `D`.
#[doc(hidden)]
pub struct Deeper<D>(PhantomData<D>);

/// [`MAX_NESTING`] levels.
#[doc(hidden)]
pub type DepthBudget = Deeper<
    Deeper<
        Deeper<
            Deeper<
                Deeper<
                    Deeper<
                        Deeper<
                            Deeper<
                                Deeper<
                                    Deeper<
                                        Deeper<Deeper<Deeper<Deeper<Deeper<Deeper<NoDepthLeft>>>>>>,
                                    >,
                                >,
                            >,
                        >,
                    >,
                >,
            >,
        >,
    >,
>;

/// A value whose sub-documents can be walked `Budget` levels deep: every
/// bounded type implements it, and `WALK` visits what it holds. A
/// `#[derive(Embedded)]` type implements it for `Deeper<B>` by walking its
/// fields with `B`, and for [`NoDepthLeft`] with a `WALK` that panics at
/// compile time, naming the type: a walk only gets there through a recursive
/// type. A constant evaluation rather than a failing bound, so that the
/// compiler reports the message instead of overflowing while it explains a
/// failure through an endless chain of impls.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[derive(Embedded)]` type, so the depth of the sub-document that holds it cannot be checked",
    label = "holds a type without `#[derive(Embedded)]`",
    note = "a struct or enum stored inside a document must `#[derive(Embedded)]`"
)]
pub trait Nesting<Budget> {
    /// Evaluated by the derive; fails to evaluate for a recursive type.
    const WALK: ();
}

/// An array or map field that may carry `#[embed(max = N)]` or be a
/// many-to-many id array: the derive checks that its `Item` is bounded.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an array or map, so it cannot carry `#[embed(max = N)]` or `#[many_to_many]`",
    label = "not an array or map",
    note = "`#[embed(max = N)]` bounds an array or map field (Vec, VecDeque, LinkedList, HashSet, BTreeSet, HashMap, BTreeMap, Box<[T]>, bson::Array, or Option/Box/Arc/Rc/Cow of one); remove it from a single value"
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
impl<T> BoundedCollection for LinkedList<T> {
    type Item = T;
}
impl<T> BoundedCollection for [T] {
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
impl<C: BoundedCollection + ?Sized> BoundedCollection for Box<C> {
    type Item = C::Item;
}
impl<C: BoundedCollection + ?Sized> BoundedCollection for Arc<C> {
    type Item = C::Item;
}
impl<C: BoundedCollection + ?Sized> BoundedCollection for Rc<C> {
    type Item = C::Item;
}
impl<C: BoundedCollection + ToOwned + ?Sized> BoundedCollection for Cow<'_, C> {
    type Item = C::Item;
}

/// Generated code calls these to attach the rule to a field's span.
#[doc(hidden)]
pub const fn assert_bounded<T: BoundedAt<AsField> + ?Sized>() {}

#[doc(hidden)]
pub const fn assert_bounded_items<C>()
where
    C: BoundedCollection + ?Sized,
    C::Item: BoundedAt<AsItem>,
{
}

/// An array type that the push helpers can write: a list whose items keep
/// their order and may repeat, so `$push` and `$slice` mean what they say
/// (`Vec`, `VecDeque`), or a set whose items are distinct (`BTreeSet`,
/// `HashSet`, pushed with `$addToSet`); and `Option`/`Box` of them.
pub trait EmbedArray: BoundedCollection {
    /// Whether the field may be stored as null (`Option` without
    /// `skip_serializing_if`): `$push` and `$pull` refuse a null field, so
    /// the helpers treat null as an empty array.
    const NULLABLE: bool = false;
    /// Whether the items are distinct (a set): pushes use `$addToSet`, and an
    /// item already held does not count against `max`.
    const SET: bool = false;
}
impl<T> EmbedArray for Vec<T> {}
impl<T> EmbedArray for VecDeque<T> {}
impl<T> EmbedArray for BTreeSet<T> {
    const SET: bool = true;
}
impl<T, S> EmbedArray for HashSet<T, S> {
    const SET: bool = true;
}
impl<C: EmbedArray> EmbedArray for Option<C> {
    const NULLABLE: bool = true;
    const SET: bool = C::SET;
}
impl<C: EmbedArray> EmbedArray for Box<C> {
    const NULLABLE: bool = C::NULLABLE;
    const SET: bool = C::SET;
}
