//! The compile-time rules of a row (see [`Row`](super::Row)): what each
//! accumulator takes and what it gives, as traits the derive's checks call
//! through [`check`], so that a mistake is reported on the row field with
//! a message that says what to write.

use bson::oid::ObjectId;
use bson::{DateTime, Decimal128};

/// A number `sum` and `avg` take: the integers and floats BSON stores, and
/// an `Option` of one (a document without it counts as nothing).
#[diagnostic::on_unimplemented(
    message = "`sum` and `avg` take a numeric field, and this one holds a `{Self}`",
    label = "not a number",
    note = "sum or average a field holding an `i32`, `i64`, `f64`, `f32` or `Decimal128` (or an `Option` of one); to count the documents of a group, write `#[group(count)]`"
)]
pub trait Numeric {
    /// What `sum` gives: `i64` for integers, `f64` for floats.
    type Sum;
    /// What `avg` gives: `f64` (`Option<f64>` for an `Option` field: a
    /// group where no document holds a number averages to `null`).
    type Avg;
}

macro_rules! numeric {
    ($($t:ty => $sum:ty, $avg:ty;)*) => {$(
        impl Numeric for $t {
            type Sum = $sum;
            type Avg = $avg;
        }
        impl Numeric for Option<$t> {
            type Sum = $sum;
            type Avg = Option<$avg>;
        }
        // One impl per operand type (not a blanket over `Numeric`), so that
        // a row field of another type reads as the rule, not as a mismatch.
        impl SumInto<$t> for $sum {}
        impl SumInto<Option<$t>> for $sum {}
        impl AvgInto<$t> for $avg {}
        impl AvgInto<Option<$t>> for Option<$avg> {}
    )*};
}

/// The product of two numbers (`sum = items.qty * items.unit_price`): a
/// float when either is one.
pub trait Times<R> {
    /// The product's type.
    type Product: Numeric;
}
macro_rules! times {
    ($($a:ty, $b:ty => $p:ty;)*) => {$( impl Times<$b> for $a { type Product = $p; } )*};
}
times! {
    i32, i32 => i64; i32, i64 => i64; i64, i32 => i64; i64, i64 => i64;
    i32, f64 => f64; f64, i32 => f64; i64, f64 => f64; f64, i64 => f64; f64, f64 => f64;
}

/// A row field `count` fills: an `i64`.
#[diagnostic::on_unimplemented(
    message = "`count` gives an `i64`, and this row field is a `{Self}`",
    label = "declare this field as `i64`",
    note = "the number of documents in the group: `#[group(count)] n: i64`"
)]
pub trait CountInto {}
impl CountInto for i64 {}

/// A row field `sum` of a `T` fills: `T::Sum` (`i64` for integers, `f64` for floats).
#[diagnostic::on_unimplemented(
    message = "`sum` of a `{T}` field gives the type its `Numeric::Sum` names, and this row field is a `{Self}`",
    label = "declare this field as `i64` for a sum of integers, `f64` for a sum of floats",
    note = "a sum of integers is an `i64` (the server widens it as it grows), of floats an `f64`; an `Option` field sums as its numbers (a group with none sums to 0)"
)]
pub trait SumInto<T> {}

/// A row field `avg` of a `T` fills: `f64`, or `Option<f64>` for an `Option` field.
#[diagnostic::on_unimplemented(
    message = "`avg` of a `{T}` field gives a double (`Option<f64>` when the field is an `Option`), and this row field is a `{Self}`",
    label = "declare this field as `f64` (`Option<f64>` for an `Option` field)",
    note = "the server averages in double precision; a group in which no document holds a number averages to `null`, hence `Option<f64>` for an `Option` field"
)]
pub trait AvgInto<T> {}

numeric! {
    i32 => i64, f64;
    i64 => i64, f64;
    u8 => i64, f64;
    u16 => i64, f64;
    u32 => i64, f64;
    f32 => f64, f64;
    f64 => f64, f64;
    Decimal128 => Decimal128, Decimal128;
}

/// A row field that `min`, `max`, `first`, `last` or a group key of a `T`
/// fills: a `T` itself (the `Option` of an `Option` field stays).
#[diagnostic::on_unimplemented(
    message = "this accumulator gives a `{T}` (the field's own type), and this row field is a `{Self}`",
    label = "declare this field as `{T}`",
    note = "`min`, `max`, `first`, `last` and a group key give the operand's type: `min` of an `Option<T>` is an `Option<T>` (a group where no document holds a value gives `null`)"
)]
pub trait SameAs<T> {}
impl<T> SameAs<T> for T {}

/// A row field an array accumulator (`push`, `top`, `bottom`,
/// `add_to_set`) of a `T` fills: a `Vec<T>`.
#[diagnostic::on_unimplemented(
    message = "an array accumulator of a `{T}` field gives a `Vec<{T}>`, and this row field is a `{Self}`",
    label = "declare this field as `Vec<{T}>`",
    note = "`push`, `top`, `bottom` and `add_to_set` build an array of at most `max` items of the operand's type"
)]
pub trait ArrayOf<T> {}
impl<T> ArrayOf<T> for Vec<T> {}

/// A date a group key can be truncated to a unit of (`trunc = day`).
#[diagnostic::on_unimplemented(
    message = "`trunc` takes a date field, and this one holds a `{Self}`",
    label = "not a `bson::DateTime`",
    note = "truncate a `bson::DateTime` field (or an `Option` of one): `#[group(key = created_at, trunc = day)]`"
)]
pub trait Date {}
impl Date for DateTime {}
impl Date for Option<DateTime> {}

/// The most bytes one item of an array accumulator takes as BSON (its
/// value, without its key), for the 16 MiB check of a row: known for the
/// values of fixed size; any other type (a `String`, a sub-document) names
/// it with `bytes = N` on the accumulator.
#[diagnostic::on_unimplemented(
    message = "an array of `{Self}` has no size bound the framework knows: declare the most bytes one item takes",
    label = "add `bytes = N` to this accumulator",
    note = "a row is one document, at most 16 MiB: `max` items of at most `bytes` each must fit (`#[group(push = title, max = 5, bytes = 400)]`); numbers, dates, booleans and `ObjectId`s need no `bytes`"
)]
pub trait ItemBytes {
    /// The most bytes one value takes.
    const BYTES: u64;
}
macro_rules! item_bytes {
    ($($t:ty => $n:expr;)*) => {$( impl ItemBytes for $t { const BYTES: u64 = $n; } )*};
}
item_bytes! {
    bool => 1; i32 => 4; i64 => 8; u8 => 4; u16 => 4; u32 => 8; f32 => 8; f64 => 8;
    Decimal128 => 16; DateTime => 8; ObjectId => 12;
}
impl<T: ItemBytes> ItemBytes for Option<T> {
    const BYTES: u64 = T::BYTES;
}

/// The checks the derive's expansion calls, one bound each so that a
/// mistake is reported where it is: an operand's on its path in the
/// attribute, a row field's on its type.
pub mod check {
    use std::marker::PhantomData;

    use super::*;

    /// A value an accumulator reads, of type `T`, at a stored path.
    pub struct Operand<T> {
        /// The stored path.
        pub name: &'static str,
        _type: PhantomData<fn() -> T>,
    }

    fn of<T>(name: &'static str) -> Operand<T> {
        Operand {
            name,
            _type: PhantomData,
        }
    }

    /// What a group reads: a field of the model (or of an earlier row)
    /// holding a `Value`.
    #[diagnostic::on_unimplemented(
        message = "a group reads a field holding a value, and `{Self}` is not one",
        label = "not a field a group can read",
        note = "name a field of the model that holds a plain value (a path through a sub-document reaches its fields)"
    )]
    pub trait Grouped {
        /// The field's type.
        type Value;
        /// The stored path.
        fn path(&self) -> &'static str;
    }

    macro_rules! grouped {
        ($ty:ty => $value:ty) => {
            impl<A, B, C> Grouped for $ty {
                type Value = $value;
                fn path(&self) -> &'static str {
                    self.name()
                }
            }
        };
    }
    crate::typed::field::for_each_plain_field!(grouped);

    /// An encrypted field is read by no group: see [`NotEncrypted`].
    impl<M, T, A: NotEncrypted> Grouped for crate::typed::field::EncryptedField<M, T, A> {
        type Value = T;
        fn path(&self) -> &'static str {
            self.name()
        }
    }

    /// Implemented by no encryption algorithm: the server holds an
    /// encrypted field's ciphertext, which no group key or accumulator can
    /// read.
    #[diagnostic::on_unimplemented(
        message = "an encrypted field cannot be grouped or accumulated: the server holds its ciphertext, which it cannot group, count, sum or compare",
        label = "an `#[encrypt]` field",
        note = "group on the model's plain fields, and read the encrypted ones with `find` or a filtered `aggregate()` of the documents, which decrypt them"
    )]
    pub trait NotEncrypted {}

    /// Any field of the model: a typed path the model does not have does
    /// not compile.
    pub fn operand<F: Grouped>(field: &F) -> Operand<F::Value> {
        of(field.path())
    }

    /// A numeric field (`sum`, `avg`).
    pub fn numeric<F: Grouped>(field: &F) -> Operand<F::Value>
    where
        F::Value: Numeric,
    {
        of(field.path())
    }

    /// A date field (a key with `trunc`).
    pub fn date<F: Grouped>(field: &F) -> Operand<F::Value>
    where
        F::Value: Date,
    {
        of(field.path())
    }

    /// The product of two numeric operands.
    pub fn product<A: Numeric + Times<B>, B: Numeric>(
        _: &Operand<A>,
        _: &Operand<B>,
    ) -> Operand<<A as Times<B>>::Product> {
        of("")
    }

    /// The most bytes one item of an array accumulator of `T` takes.
    pub fn item_bytes<T: ItemBytes>(_: &Operand<T>) -> u64 {
        T::BYTES
    }

    /// The row-field checks: `R` is the row field's type, `T` the
    /// operand's, known from the operand, so that a mismatch reads as the
    /// rule's message.
    impl<T> Operand<T> {
        /// A group key (truncated or not) fills a row field `R`.
        pub fn key<R: SameAs<T>>(&self) {}

        /// `min`, `max`, `first`, `last` fill a row field `R`.
        pub fn same<R: SameAs<T>>(&self) {}

        /// An array accumulator fills a row field `R`.
        pub fn array<R: ArrayOf<T>>(&self) {}
    }

    impl<T: Numeric> Operand<T> {
        /// `sum` fills a row field `R`.
        pub fn sum<R: SumInto<T>>(&self) {}

        /// `avg` fills a row field `R`.
        pub fn avg<R: AvgInto<T>>(&self) {}
    }

    /// `count` fills a row field `R`.
    pub fn count<R: CountInto>() {}
}
