//! How Rust's own types are described to the server: the scalars, `Option`,
//! `Box`, `Arc`, arrays, sequences, sets and maps, and the fixed-size values
//! the bound rule accepts: tuples (stored by serde as arrays of their length,
//! one schema per position, like tuple structs), `NonZero*`
//! integers (stored as the integer), `Cow`/`Rc` (stored as what they hold),
//! `PhantomData` (stored as null), and the containers whose `#[embed(max)]`
//! is accepted beside `Vec` (`LinkedList`, `Box<[T]>`).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::marker::PhantomData;
use std::num::{
    NonZeroI128, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroI8, NonZeroIsize, NonZeroU128,
    NonZeroU16, NonZeroU32, NonZeroU64, NonZeroU8, NonZeroUsize,
};
use std::rc::Rc;

use bson::{doc, Bson, Document};

use crate::model::validator::depth::schema_of;
use crate::model::validator::{array_of, map_of, nullable, tuple_of, BsonSchema};

macro_rules! scalar {
    ($name:literal: $($t:ty),*) => {
        $(impl BsonSchema for $t {
            fn bson_schema() -> Document { doc! { "bsonType": $name } }
        })*
    };
}

scalar!("string": String, &'static str, char);
scalar!("bool": bool);
scalar!("objectId": bson::oid::ObjectId);
scalar!("date": bson::DateTime);
scalar!("decimal": bson::Decimal128);
scalar!("timestamp": bson::Timestamp);
scalar!("binData": bson::Binary, bson::Uuid);
scalar!("regex": bson::Regex);
scalar!("object": Document);

// Types whose stored form depends on serializer options get no constraint.
macro_rules! any {
    ($($t:ty),*) => {
        $(impl BsonSchema for $t {
            fn bson_schema() -> Document { Document::new() }
        })*
    };
}
any!(Bson, i128, u128, std::time::Duration, ());

/// The schema of an integer whose values run from `min` to `max`: an int
/// or a long (`bsonType: ["int", "long"]`), with `minimum` and `maximum`
/// where the range is narrower than a long's.
///
/// The validator accepts what the model decodes, no more and no less: serde
/// reads an integer field from either BSON integer type when the value fits
/// (an `i64` from an int, an `i32` from a long under 2^31, a `u8` from
/// either up to 255), and never from a double; and what the type writes
/// (an int for `i8`..`i32`, `u8` and `u16`; a long for the others) is
/// always in the range. Data an older program wrote as the other integer
/// type is thus valid, as it reads.
fn integer(min: i64, max: i64) -> Document {
    let mut schema = doc! { "bsonType": ["int", "long"] };
    if min > i64::MIN {
        schema.insert("minimum", min);
    }
    if max < i64::MAX {
        schema.insert("maximum", max);
    }
    schema
}

macro_rules! integer {
    ($($t:ty),*) => {
        $(impl BsonSchema for $t {
            fn bson_schema() -> Document {
                // `u64::MAX` is past a long's: no `maximum` then.
                integer(
                    i64::try_from(<$t>::MIN).unwrap_or(i64::MIN),
                    i64::try_from(<$t>::MAX).unwrap_or(i64::MAX),
                )
            }
        })*
    };
}

integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// A float decodes from a double, an int or a long (serde converts an
/// integer to a float), so its validator accepts the three: a price an
/// older program wrote as `10` is as valid as `10.5`. Not a decimal, which
/// serde does not read as a float.
macro_rules! float {
    ($($t:ty),*) => {
        $(impl BsonSchema for $t {
            fn bson_schema() -> Document {
                doc! { "bsonType": ["double", "int", "long"] }
            }
        })*
    };
}

float!(f32, f64);

/// Serde stores a `SystemTime` as `{secs_since_epoch, nanos_since_epoch}`,
/// not as a BSON date.
impl BsonSchema for std::time::SystemTime {
    fn bson_schema() -> Document {
        doc! {
            "bsonType": "object",
            "required": ["secs_since_epoch", "nanos_since_epoch"],
            "properties": {
                "secs_since_epoch": u64::bson_schema(),
                "nanos_since_epoch": u32::bson_schema(),
            },
            "additionalProperties": false,
        }
    }
}

impl<T: BsonSchema> BsonSchema for Option<T> {
    fn bson_schema() -> Document {
        nullable(schema_of::<T>())
    }
    fn optional() -> bool {
        true
    }
    fn encrypted_paths() -> Vec<crate::model::encrypted::EncryptedPath> {
        T::encrypted_paths()
    }
}

impl<T: BsonSchema + ?Sized> BsonSchema for Box<T> {
    fn bson_schema() -> Document {
        schema_of::<T>()
    }
    fn optional() -> bool {
        T::optional()
    }
    fn encrypted_paths() -> Vec<crate::model::encrypted::EncryptedPath> {
        T::encrypted_paths()
    }
}

impl<T: BsonSchema + ?Sized> BsonSchema for std::sync::Arc<T> {
    fn bson_schema() -> Document {
        schema_of::<T>()
    }
    fn optional() -> bool {
        T::optional()
    }
    fn encrypted_paths() -> Vec<crate::model::encrypted::EncryptedPath> {
        T::encrypted_paths()
    }
}

impl<T: BsonSchema, const N: usize> BsonSchema for [T; N] {
    fn bson_schema() -> Document {
        let mut schema = array_of(schema_of::<T>());
        schema.insert("minItems", N as i64);
        schema.insert("maxItems", N as i64);
        schema
    }
    fn encrypted_paths() -> Vec<crate::model::encrypted::EncryptedPath> {
        T::encrypted_paths()
    }
}

macro_rules! array {
    ($($t:ident),*) => {
        $(impl<T: BsonSchema> BsonSchema for $t<T> {
            fn bson_schema() -> Document { array_of(schema_of::<T>()) }
            fn encrypted_paths() -> Vec<crate::model::encrypted::EncryptedPath> {
                T::encrypted_paths()
            }
        })*
    };
}
array!(Vec, VecDeque, BTreeSet);

impl<T: BsonSchema, S> BsonSchema for HashSet<T, S> {
    fn bson_schema() -> Document {
        array_of(schema_of::<T>())
    }
}

impl<K, V: BsonSchema, S> BsonSchema for HashMap<K, V, S> {
    fn bson_schema() -> Document {
        map_of(schema_of::<V>())
    }
}

impl<K, V: BsonSchema> BsonSchema for BTreeMap<K, V> {
    fn bson_schema() -> Document {
        map_of(schema_of::<V>())
    }
}

macro_rules! non_zero {
    ($($nz:ty => $int:ty),* $(,)?) => {
        $(impl BsonSchema for $nz {
            fn bson_schema() -> Document {
                <$int as BsonSchema>::bson_schema()
            }
        })*
    };
}

non_zero!(
    NonZeroI8 => i8,
    NonZeroI16 => i16,
    NonZeroI32 => i32,
    NonZeroI64 => i64,
    NonZeroI128 => i128,
    NonZeroIsize => isize,
    NonZeroU8 => u8,
    NonZeroU16 => u16,
    NonZeroU32 => u32,
    NonZeroU64 => u64,
    NonZeroU128 => u128,
    NonZeroUsize => usize,
);

impl BsonSchema for str {
    fn bson_schema() -> Document {
        doc! { "bsonType": "string" }
    }
}

impl<T: ?Sized + ToOwned + BsonSchema> BsonSchema for Cow<'_, T> {
    fn bson_schema() -> Document {
        schema_of::<T>()
    }
    fn optional() -> bool {
        T::optional()
    }
}

impl<T: ?Sized + BsonSchema> BsonSchema for Rc<T> {
    fn bson_schema() -> Document {
        schema_of::<T>()
    }
    fn optional() -> bool {
        T::optional()
    }
}

/// Serde stores `PhantomData` as a unit: `null`.
impl<T: ?Sized> BsonSchema for PhantomData<T> {
    fn bson_schema() -> Document {
        doc! { "bsonType": "null" }
    }
}

impl<T: BsonSchema> BsonSchema for [T] {
    fn bson_schema() -> Document {
        array_of(schema_of::<T>())
    }
    fn encrypted_paths() -> Vec<crate::model::encrypted::EncryptedPath> {
        T::encrypted_paths()
    }
}

impl<T: BsonSchema> BsonSchema for LinkedList<T> {
    fn bson_schema() -> Document {
        array_of(schema_of::<T>())
    }
    fn encrypted_paths() -> Vec<crate::model::encrypted::EncryptedPath> {
        T::encrypted_paths()
    }
}

impl BsonSchema for bson::JavaScriptCodeWithScope {
    fn bson_schema() -> Document {
        doc! { "bsonType": "javascriptWithScope" }
    }
}

macro_rules! tuple {
    ($($t:ident),+) => {
        impl<$($t: BsonSchema),+> BsonSchema for ($($t,)+) {
            fn bson_schema() -> Document {
                tuple_of(vec![$(schema_of::<$t>()),+])
            }
        }
    };
}
tuple!(A);
tuple!(A, B);
tuple!(A, B, C);
tuple!(A, B, C, D);
tuple!(A, B, C, D, E);
tuple!(A, B, C, D, E, F);
tuple!(A, B, C, D, E, F, G);
tuple!(A, B, C, D, E, F, G, H);
tuple!(A, B, C, D, E, F, G, H, I);
tuple!(A, B, C, D, E, F, G, H, I, J);
tuple!(A, B, C, D, E, F, G, H, I, J, K);
tuple!(A, B, C, D, E, F, G, H, I, J, K, L);

/// A stand-in for the type `T` of an `#[embed(unbounded = "reason")]` field,
/// which need not be described: the escape hatch also keeps a type from
/// another crate that cannot implement [`BsonSchema`].
/// `(&SchemaProbe::<T>::NEW).schema_or_any()` resolves to
/// [`Described::schema_or_any`] when `T: BsonSchema` (method lookup tries the
/// receiver's own type before borrowing it again), and otherwise to
/// [`Undescribed::schema_or_any`]: `{}`, no constraint.
#[doc(hidden)]
pub struct SchemaProbe<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> SchemaProbe<T> {
    /// The probe.
    pub const NEW: Self = SchemaProbe(PhantomData);
}

/// A described type: its own schema.
#[doc(hidden)]
pub trait Described {
    /// `T`'s schema.
    fn schema_or_any(&self) -> Document;
    /// `T::optional()`.
    fn optional_or(&self, written_as_option: bool) -> bool;
    /// `T::encrypted_paths()`.
    fn encrypted_or_none(&self) -> Vec<crate::model::encrypted::EncryptedPath>;
}

impl<T: BsonSchema + ?Sized> Described for SchemaProbe<T> {
    fn schema_or_any(&self) -> Document {
        schema_of::<T>()
    }
    fn optional_or(&self, _written_as_option: bool) -> bool {
        T::optional()
    }
    fn encrypted_or_none(&self) -> Vec<crate::model::encrypted::EncryptedPath> {
        T::encrypted_paths()
    }
}

/// Any other type: no constraint, and optional when written as an `Option`.
#[doc(hidden)]
pub trait Undescribed {
    /// `{}`.
    fn schema_or_any(&self) -> Document {
        Document::new()
    }
    /// Whether the field's type is written `Option<...>`.
    fn optional_or(&self, written_as_option: bool) -> bool {
        written_as_option
    }
    /// None: a type without a description declares no encrypted field
    /// (the missing description is reported where the validator needs it).
    fn encrypted_or_none(&self) -> Vec<crate::model::encrypted::EncryptedPath> {
        Vec::new()
    }
}

impl<T: ?Sized> Undescribed for &SchemaProbe<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_are_arrays_of_their_length() {
        assert_eq!(
            <(String, i32)>::bson_schema(),
            doc! {
                "bsonType": "array",
                "minItems": 2_i64,
                "maxItems": 2_i64,
                "items": [
                    { "bsonType": "string" },
                    { "bsonType": ["int", "long"], "minimum": -2_147_483_648_i64, "maximum": 2_147_483_647_i64 },
                ],
            }
        );
    }

    /// Each integer type's validator takes both BSON integer types within
    /// its range, as serde decodes them; a float's takes the integers too.
    #[test]
    fn numbers_accept_what_they_decode() {
        assert_eq!(i64::bson_schema(), doc! { "bsonType": ["int", "long"] });
        assert_eq!(isize::bson_schema(), i64::bson_schema());
        assert_eq!(
            u64::bson_schema(),
            doc! { "bsonType": ["int", "long"], "minimum": 0_i64 }
        );
        assert_eq!(
            u8::bson_schema(),
            doc! { "bsonType": ["int", "long"], "minimum": 0_i64, "maximum": 255_i64 }
        );
        assert_eq!(
            u32::bson_schema(),
            doc! { "bsonType": ["int", "long"], "minimum": 0_i64, "maximum": 4_294_967_295_i64 }
        );
        assert_eq!(
            i8::bson_schema(),
            doc! { "bsonType": ["int", "long"], "minimum": -128_i64, "maximum": 127_i64 }
        );
        assert_eq!(
            f64::bson_schema(),
            doc! { "bsonType": ["double", "int", "long"] }
        );
        assert_eq!(f32::bson_schema(), f64::bson_schema());
        assert_eq!(
            Option::<i64>::bson_schema(),
            doc! { "bsonType": ["int", "long", "null"] }
        );
    }

    #[test]
    fn wrappers_are_what_they_hold() {
        assert_eq!(NonZeroU8::bson_schema(), u8::bson_schema());
        assert_eq!(Cow::<'static, str>::bson_schema(), String::bson_schema());
        assert_eq!(
            PhantomData::<Vec<u8>>::bson_schema(),
            doc! { "bsonType": "null" }
        );
        let stored = bson::serialize_to_bson(&PhantomData::<u8>).unwrap();
        assert_eq!(stored, bson::Bson::Null);
    }
}
