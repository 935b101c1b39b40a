//! The `$jsonSchema` validator: how each Rust type is described to the server.
//!
//! The derive builds a model's validator from [`BsonSchema::bson_schema`] of
//! every field, adds `required` for fields that are always written, and
//! `maxItems` from `#[embed(max = N)]`, so the server rejects a write that
//! would break the model even when it comes from another program.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use bson::{doc, Bson, Document};

/// Describes a Rust type as a `$jsonSchema` fragment (`{"bsonType": ...}`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `$jsonSchema` description",
    note = "derive `Embedded` on a struct or enum stored inside a document, or implement `schema_core::BsonSchema` for it"
)]
pub trait BsonSchema {
    /// The schema of one value of this type.
    fn bson_schema() -> Document;

    /// Whether a document may omit the field (true for `Option`).
    fn optional() -> bool {
        false
    }
}

macro_rules! scalar {
    ($name:literal: $($t:ty),*) => {
        $(impl BsonSchema for $t {
            fn bson_schema() -> Document { doc! { "bsonType": $name } }
        })*
    };
}

scalar!("string": String, &'static str, char);
scalar!("bool": bool);
scalar!("int": i8, i16, i32, u8, u16);
scalar!("long": i64, isize, u32);
scalar!("double": f32, f64);
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
scalar!("long": u64, usize);
any!(Bson, i128, u128, std::time::Duration, ());

/// Serde stores a `SystemTime` as `{secs_since_epoch, nanos_since_epoch}`,
/// not as a BSON date.
impl BsonSchema for std::time::SystemTime {
    fn bson_schema() -> Document {
        doc! {
            "bsonType": "object",
            "required": ["secs_since_epoch", "nanos_since_epoch"],
            "properties": {
                "secs_since_epoch": { "bsonType": "long" },
                "nanos_since_epoch": { "bsonType": "long" },
            },
        }
    }
}

impl<T: BsonSchema> BsonSchema for Option<T> {
    fn bson_schema() -> Document {
        nullable(T::bson_schema())
    }
    fn optional() -> bool {
        true
    }
}

impl<T: BsonSchema + ?Sized> BsonSchema for Box<T> {
    fn bson_schema() -> Document {
        T::bson_schema()
    }
    fn optional() -> bool {
        T::optional()
    }
}

impl<T: BsonSchema + ?Sized> BsonSchema for std::sync::Arc<T> {
    fn bson_schema() -> Document {
        T::bson_schema()
    }
    fn optional() -> bool {
        T::optional()
    }
}

impl<T: BsonSchema, const N: usize> BsonSchema for [T; N] {
    fn bson_schema() -> Document {
        let mut schema = array_of(T::bson_schema());
        schema.insert("minItems", N as i64);
        schema.insert("maxItems", N as i64);
        schema
    }
}

macro_rules! array {
    ($($t:ident),*) => {
        $(impl<T: BsonSchema> BsonSchema for $t<T> {
            fn bson_schema() -> Document { array_of(T::bson_schema()) }
        })*
    };
}
array!(Vec, VecDeque, BTreeSet);

impl<T: BsonSchema, S> BsonSchema for HashSet<T, S> {
    fn bson_schema() -> Document {
        array_of(T::bson_schema())
    }
}

impl<K, V: BsonSchema, S> BsonSchema for HashMap<K, V, S> {
    fn bson_schema() -> Document {
        map_of(V::bson_schema())
    }
}

impl<K, V: BsonSchema> BsonSchema for BTreeMap<K, V> {
    fn bson_schema() -> Document {
        map_of(V::bson_schema())
    }
}

/// `{"bsonType": "array", "items": item}` (no `items` when `item` is empty).
pub fn array_of(item: Document) -> Document {
    let mut schema = doc! { "bsonType": "array" };
    if !item.is_empty() {
        schema.insert("items", item);
    }
    schema
}

/// `{"bsonType": "object", "additionalProperties": value}`.
pub fn map_of(value: Document) -> Document {
    let mut schema = doc! { "bsonType": "object" };
    if !value.is_empty() {
        schema.insert("additionalProperties", value);
    }
    schema
}

/// Adds `"null"` to a schema's `bsonType`, so an `Option` may be stored as null.
pub fn nullable(mut schema: Document) -> Document {
    match schema.get("bsonType").cloned() {
        Some(Bson::String(t)) => {
            schema.insert(
                "bsonType",
                vec![Bson::String(t), Bson::String("null".into())],
            );
        }
        Some(Bson::Array(mut types)) => {
            if !types.contains(&Bson::String("null".into())) {
                types.push(Bson::String("null".into()));
            }
            schema.insert("bsonType", types);
        }
        // An `enum` list (a unit-only enum) admits only what it lists.
        _ => {
            if let Some(Bson::Array(values)) = schema.get_mut("enum") {
                if !values.contains(&Bson::Null) {
                    values.push(Bson::Null);
                }
            }
            // Otherwise no type constraint already accepts null.
        }
    }
    schema
}

/// Sets `maxItems` on an array schema (or `maxProperties` on a map schema),
/// looking through `Option`'s nullable wrapper.
pub fn with_max_items(mut schema: Document, max: u32) -> Document {
    let is_map = match schema.get("bsonType") {
        Some(Bson::String(t)) => t == "object",
        Some(Bson::Array(types)) => types.contains(&Bson::String("object".into())),
        _ => false,
    };
    let key = if is_map { "maxProperties" } else { "maxItems" };
    schema.insert(key, i64::from(max));
    schema
}

/// One property of an object schema, as the derive describes it.
#[derive(Debug, Clone)]
pub struct Property {
    /// The stored (serde) name.
    pub name: &'static str,
    /// The property's schema.
    pub schema: Document,
    /// Whether every stored document must hold it.
    pub required: bool,
}

/// Builds `{"bsonType": "object", "required": [...], "properties": {...}}`.
pub fn object_schema(properties: Vec<Property>) -> Document {
    let required: Vec<Bson> = properties
        .iter()
        .filter(|p| p.required)
        .map(|p| Bson::String(p.name.to_owned()))
        .collect();
    let mut props = Document::new();
    for p in properties {
        props.insert(p.name, p.schema);
    }
    let mut schema = doc! { "bsonType": "object" };
    if !required.is_empty() {
        schema.insert("required", required);
    }
    schema.insert("properties", props);
    schema
}

/// Wraps a model's object schema as a collection validator.
pub fn validator(object: Document) -> Document {
    doc! { "$jsonSchema": object }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_adds_null() {
        assert_eq!(
            Option::<String>::bson_schema(),
            doc! { "bsonType": ["string", "null"] }
        );
        assert!(Option::<String>::optional());
        assert!(!String::optional());
    }

    #[test]
    fn option_of_an_enum_list_admits_null() {
        let unit_enum = doc! { "enum": ["Draft", "Live"] };
        assert_eq!(
            nullable(unit_enum),
            doc! { "enum": ["Draft", "Live", Bson::Null] }
        );
        assert_eq!(nullable(Document::new()), Document::new());
    }

    #[test]
    fn system_time_is_described_as_serde_stores_it() {
        let stored = bson::to_bson(&std::time::SystemTime::UNIX_EPOCH).unwrap();
        let Bson::Document(stored) = stored else {
            panic!("{stored:?}")
        };
        assert_eq!(
            stored,
            doc! { "secs_since_epoch": 0_i64, "nanos_since_epoch": 0_i64 }
        );
        let schema = std::time::SystemTime::bson_schema();
        assert_eq!(schema.get_str("bsonType").ok(), Some("object"));
    }

    #[test]
    fn max_items_on_arrays_and_properties_on_maps() {
        let vec = with_max_items(Vec::<String>::bson_schema(), 10);
        assert_eq!(
            vec,
            doc! { "bsonType": "array", "items": { "bsonType": "string" }, "maxItems": 10_i64 }
        );
        let map = with_max_items(HashMap::<String, i32>::bson_schema(), 5);
        assert_eq!(map.get_i64("maxProperties").ok(), Some(5));
    }

    #[test]
    fn object_lists_required_fields() {
        let schema = object_schema(vec![
            Property {
                name: "_id",
                schema: String::bson_schema(),
                required: true,
            },
            Property {
                name: "bio",
                schema: Option::<String>::bson_schema(),
                required: false,
            },
        ]);
        assert_eq!(
            schema.get_array("required").ok(),
            Some(&vec![Bson::from("_id")])
        );
        assert!(schema
            .get_document("properties")
            .unwrap()
            .contains_key("bio"));
    }
}
