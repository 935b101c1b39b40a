//! How the fixed-size values the bound rule accepts are described to the
//! server: tuples (stored by serde as arrays of their length, one schema per
//! position, like tuple structs), `NonZero*`
//! integers (stored as the integer), `Cow`/`Rc` (stored as what they hold),
//! `PhantomData` (stored as null), and the containers whose `#[embed(max)]`
//! is accepted beside `Vec` (`LinkedList`, `Box<[T]>`).

use std::borrow::Cow;
use std::collections::LinkedList;
use std::marker::PhantomData;
use std::num::{
    NonZeroI128, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroI8, NonZeroIsize, NonZeroU128,
    NonZeroU16, NonZeroU32, NonZeroU64, NonZeroU8, NonZeroUsize,
};
use std::rc::Rc;

use bson::{doc, Document};

use crate::model::validator::depth::schema_of;
use crate::model::validator::{array_of, tuple_of, BsonSchema};

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
}

impl<T: BsonSchema> BsonSchema for LinkedList<T> {
    fn bson_schema() -> Document {
        array_of(schema_of::<T>())
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
                "items": [{ "bsonType": "string" }, { "bsonType": "int" }],
            }
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
