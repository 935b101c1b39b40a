//! The updates of one plain field (`set`, `inc`, `mul`, `min`, `max`,
//! `current_date`, `unset`) and the traits that say which fields take them
//! ([`Number`], [`NumericField`], [`DateField`], [`Optional`]).

use bson::{doc, Bson};
use serde::Serialize;

use super::Update;
use crate::error::Result;
use crate::model::codec::value_to_bson;
use crate::model::Updatable;
use crate::typed::field::{Compare, Field, Scope, Typed};
use crate::typed::path::{OutsideArrays, OutsideBuckets, OutsideVariants};

/// A numeric type: `inc` and `mul` take one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number: `inc` and `mul` apply to numeric fields",
    label = "not a numeric value"
)]
pub trait Number: Serialize {}

/// The type of a numeric field: a [`Number`], or an `Option` or `Box` of
/// one. `inc` and `mul` take a `Self::Number`, so one bound carries both
/// rules (a numeric field, a number of its type) and a text field is told
/// it is not a number, whatever it is given.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number: `inc` and `mul` apply to numeric fields",
    label = "not a numeric field",
    note = "`inc` and `mul` take a number of the field's type (of `T` on an `Option<T>` field); `set` stores any value of the field's type"
)]
pub trait NumericField {
    /// The number `inc` and `mul` take.
    type Number: Number;
}

// One impl per type, no blanket over `Number`: a blanket impl would be the
// one candidate for a `String`, and the compiler would then report the
// number it takes (`String`) against the value given, twice.
macro_rules! number {
    ($($t:ty),*) => { $(
        impl Number for $t {}
        #[diagnostic::do_not_recommend]
        impl NumericField for $t {
            type Number = $t;
        }
        #[diagnostic::do_not_recommend]
        impl NumericField for Option<$t> {
            type Number = $t;
        }
        #[diagnostic::do_not_recommend]
        impl NumericField for Box<$t> {
            type Number = $t;
        }
    )* };
}
number!(
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    bson::Decimal128
);

/// A field type `$currentDate` can set: `bson::DateTime` (a date) or
/// `bson::Timestamp`, or an `Option`/`Box` of one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a BSON date or timestamp: `current_date` sets a `bson::DateTime` or `bson::Timestamp` field",
    label = "not a date field"
)]
pub trait DateField {
    /// `"date"` or `"timestamp"`.
    const TYPE: &'static str;
}
impl DateField for bson::DateTime {
    const TYPE: &'static str = "date";
}
impl DateField for bson::Timestamp {
    const TYPE: &'static str = "timestamp";
}
impl<T: DateField> DateField for Option<T> {
    const TYPE: &'static str = T::TYPE;
}
impl<T: DateField> DateField for Box<T> {
    const TYPE: &'static str = T::TYPE;
}

/// Updates of one field: each is one operator on the field's stored path.
///
/// ```
/// use schema_core::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Document, Serialize, Deserialize)]
/// #[document(collection = "items")]
/// struct Item {
///     #[serde(rename = "_id")]
///     id: String,
///     stock: i32,
///     price: f64,
///     low: Option<i32>,
///     seen: bson::DateTime,
/// }
///
/// let f = Item::FIELDS;
/// let doc = |u: Update<Item>| u.into_document().unwrap();
/// assert_eq!(doc(f.stock.set(&3)), bson::doc! { "$set": { "stock": 3 } });
/// assert_eq!(doc(f.stock.inc(&-1)), bson::doc! { "$inc": { "stock": -1 } });
/// assert_eq!(doc(f.price.mul(&1.1)), bson::doc! { "$mul": { "price": 1.1 } });
/// assert_eq!(doc(f.low.min(&2)), bson::doc! { "$min": { "low": 2 } });
/// assert_eq!(doc(f.stock.max(&0)), bson::doc! { "$max": { "stock": 0 } });
/// assert_eq!(doc(f.low.unset()), bson::doc! { "$unset": { "low": "" } });
/// assert_eq!(
///     doc(f.seen.current_date()),
///     bson::doc! { "$currentDate": { "seen": { "$type": "date" } } }
/// );
/// // One path changed twice is refused.
/// assert!(f.stock.inc(&1).and(f.stock.set(&0)).into_document().is_err());
/// ```
impl<M: Scope, T, P> Field<M, T, P> {
    /// `{$set: {path: value}}` (on an `Option<T>` field, a `T` stores it).
    pub fn set<V: Serialize + ?Sized>(&self, value: &V) -> Update<M>
    where
        T: Compare<V>,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$set", self.name(), self.bson(value))
    }

    /// `{$inc: {path: by}}` on a numeric field.
    pub fn inc(&self, by: &T::Number) -> Update<M>
    where
        T: NumericField,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$inc", self.name(), self.bson(by))
    }

    /// `{$mul: {path: by}}` on a numeric field.
    pub fn mul(&self, by: &T::Number) -> Update<M>
    where
        T: NumericField,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$mul", self.name(), self.bson(by))
    }

    /// `{$min: {path: value}}`: stores `value` if it is below the stored one.
    pub fn min<V: Serialize + ?Sized>(&self, value: &V) -> Update<M>
    where
        T: Compare<V>,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$min", self.name(), self.bson(value))
    }

    /// `{$max: {path: value}}`: stores `value` if it is above the stored one.
    pub fn max<V: Serialize + ?Sized>(&self, value: &V) -> Update<M>
    where
        T: Compare<V>,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$max", self.name(), self.bson(value))
    }

    /// `{$currentDate: {path: {$type: "date"}}}` (or `"timestamp"`) on a
    /// `bson::DateTime` or `bson::Timestamp` field: the server's clock.
    pub fn current_date(&self) -> Update<M>
    where
        T: DateField,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        let kind = doc! { "$type": T::TYPE };
        Update::op("$currentDate", self.name(), Ok(Bson::Document(kind)))
    }

    fn bson<V: Serialize + ?Sized>(&self, value: &V) -> Result<Bson> {
        value_to_bson(value, M::NAME, self.name())
    }
}

/// A field type that may be absent: `Option<T>`. `unset` needs one.
#[diagnostic::on_unimplemented(
    message = "`unset` removes a field, and a `{Self}` field is required: only an `Option` field may be absent",
    label = "not an `Option` field",
    note = "make the field an `Option<_>`, or `set` it to another value"
)]
pub trait Optional {}
impl<T> Optional for Option<T> {}

impl<M: Scope, T, P> Field<M, T, P> {
    /// `{$unset: {path: ""}}`: removes the field, which reads back as `None`.
    /// Only an `Option` field has it: a required field cannot be removed.
    pub fn unset(&self) -> Update<M>
    where
        T: Optional,
        P: OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$unset", self.name(), Ok(Bson::String(String::new())))
    }
}
