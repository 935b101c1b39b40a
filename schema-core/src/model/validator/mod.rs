//! The `$jsonSchema` validator: how each Rust type is described to the server
//! ([`BsonSchema`]), and the building blocks the derive's generated code calls
//! (through `__private`) to describe objects, enums and bounded arrays.

pub(crate) mod depth;
pub(crate) mod impls;

use bson::{doc, Bson, Document};

/// Describes a Rust type as a `$jsonSchema` fragment (`{"bsonType": ...}`).
///
/// The derive builds a model's validator from `bson_schema` of every field,
/// adds `required` for fields that are always written, and `maxItems` from
/// `#[embed(max = N)]`. Every object it describes (the root document, each
/// `Embedded` struct, each enum variant's object) is closed with
/// `additionalProperties: false` unless the type says `#[document(open)]`,
/// and an enum gets one branch per variant (`oneOf`, or `anyOf` when
/// untagged). So the server rejects a write that would break the model even
/// when it comes from another program: a bound exceeded, a field of the
/// wrong type, or a field the model does not declare.
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

    /// The encrypted fields (`#[encrypt(...)]`) inside a value of this
    /// type, by their paths below it: a `#[derive(Embedded)]` struct's
    /// own, and those of its sub-documents; an `Option`, a `Box` or an
    /// array of one forwards its item's (an array's items are reached by
    /// the same dotted path). Nothing for other types. Generated code.
    #[doc(hidden)]
    fn encrypted_paths() -> Vec<crate::model::encrypted::EncryptedPath> {
        Vec::new()
    }
}

/// `{"bsonType": "array", "items": item}` (no `items` when `item` is empty).
pub(crate) fn array_of(item: Document) -> Document {
    let mut schema = doc! { "bsonType": "array" };
    if !item.is_empty() {
        schema.insert("items", item);
    }
    schema
}

/// `{"bsonType": "object", "additionalProperties": value}`.
pub(crate) fn map_of(value: Document) -> Document {
    let mut schema = doc! { "bsonType": "object" };
    if !value.is_empty() {
        schema.insert("additionalProperties", value);
    }
    schema
}

/// Adds `"null"` to a schema's `bsonType`, so an `Option` may be stored as null.
pub(crate) fn nullable(mut schema: Document) -> Document {
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
        _ => {
            let null_branch = doc! { "bsonType": "null" };
            if let Some(Bson::Array(values)) = schema.get_mut("enum") {
                // An `enum` list (a unit-only enum) admits only what it lists.
                if !values.contains(&Bson::Null) {
                    values.push(Bson::Null);
                }
            } else if let Some(Bson::Array(branches)) = schema.get_mut("anyOf") {
                // An untagged enum: one more branch.
                if !branches.contains(&Bson::Document(null_branch.clone())) {
                    branches.push(Bson::Document(null_branch));
                }
            } else if schema.contains_key("oneOf") {
                // A tagged enum: null is none of its branches.
                return doc! { "anyOf": [null_branch, schema] };
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

/// Builds `{"bsonType": "object", "required": [...], "properties": {...}}`,
/// with `"additionalProperties": false` when `closed`: a stored object may
/// then hold only the properties listed.
pub fn object_schema(properties: Vec<Property>, closed: bool) -> Document {
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
    if closed {
        schema.insert("additionalProperties", false);
    }
    schema
}

/// `{"enum": [names]}`: the values a tag may hold.
pub fn enum_of(names: &[&str]) -> Document {
    let names: Vec<Bson> = names
        .iter()
        .map(|n| Bson::String((*n).to_owned()))
        .collect();
    doc! { "enum": names }
}

/// A fixed-length array (a tuple struct or tuple variant): position `i`
/// holds `items[i]`.
pub fn tuple_of(items: Vec<Document>) -> Document {
    let len = items.len() as i64;
    let mut schema = doc! { "bsonType": "array", "minItems": len, "maxItems": len };
    if !items.is_empty() {
        schema.insert("items", items);
    }
    schema
}

/// The content of an internally tagged newtype variant (`#[serde(tag = "t")]`,
/// `V(T)`), which serde stores as `T`'s object with the tag `t: "V"` added:
/// `T`'s schema with the tag property required. Each branch of an enum gets
/// the tag; content that is not described as an object (or as `null`, a unit
/// struct) is left open, holding the tag alone as a rule.
pub fn with_tag(mut schema: Document, tag: &'static str, name: &str, closed: bool) -> Document {
    let tag_property = |closed| {
        object_schema(
            vec![Property {
                name: tag,
                schema: enum_of(&[name]),
                required: true,
            }],
            closed,
        )
    };
    for combinator in ["oneOf", "anyOf"] {
        if let Some(Bson::Array(branches)) = schema.get_mut(combinator) {
            for branch in branches.iter_mut() {
                if let Bson::Document(branch) = branch {
                    *branch = with_tag(std::mem::take(branch), tag, name, closed);
                }
            }
            return schema;
        }
    }
    let types: Vec<Bson> = match schema.get("bsonType") {
        Some(Bson::String(t)) => vec![Bson::String(t.clone())],
        Some(Bson::Array(types)) => types.clone(),
        _ => Vec::new(),
    };
    if types.contains(&Bson::String("object".into())) {
        schema.insert("bsonType", "object");
        let mut required = match schema.remove("required") {
            Some(Bson::Array(required)) => required,
            _ => Vec::new(),
        };
        required.push(Bson::String(tag.to_owned()));
        schema.insert("required", required);
        let mut properties = match schema.remove("properties") {
            Some(Bson::Document(properties)) => properties,
            _ => Document::new(),
        };
        properties.insert(tag, enum_of(&[name]));
        schema.insert("properties", properties);
        // A map's bound counts its entries; the tag is one more.
        if let Ok(max) = schema.get_i64("maxProperties") {
            schema.insert("maxProperties", max.saturating_add(1));
        }
        schema
    } else if types == [Bson::String("null".into())] {
        tag_property(closed)
    } else {
        tag_property(false)
    }
}

/// One branch per enum variant, exactly one of which a stored value matches
/// (the branches of a tagged enum differ by their tag).
pub fn one_of(branches: Vec<Document>) -> Document {
    combine("oneOf", branches)
}

/// One branch per enum variant, at least one of which a stored value
/// matches (untagged variants may overlap).
pub fn any_of(branches: Vec<Document>) -> Document {
    combine("anyOf", branches)
}

fn combine(combinator: &str, mut branches: Vec<Document>) -> Document {
    match branches.len() {
        // No variant is ever stored.
        0 => Document::new(),
        1 => branches.pop().unwrap_or_default(),
        _ => doc! { combinator: branches },
    }
}

/// Wraps a model's object schema as a collection validator.
pub(crate) fn validator(object: Document) -> Document {
    doc! { "$jsonSchema": object }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

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
        let stored = bson::serialize_to_bson(&std::time::SystemTime::UNIX_EPOCH).unwrap();
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
        let schema = object_schema(
            vec![
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
            ],
            true,
        );
        assert_eq!(
            schema.get_array("required").ok(),
            Some(&vec![Bson::from("_id")])
        );
        assert!(schema
            .get_document("properties")
            .unwrap()
            .contains_key("bio"));
    }

    #[test]
    fn objects_are_closed_unless_open() {
        let property = || Property {
            name: "a",
            schema: String::bson_schema(),
            required: true,
        };
        let closed = object_schema(vec![property()], true);
        assert_eq!(closed.get_bool("additionalProperties").ok(), Some(false));
        let open = object_schema(vec![property()], false);
        assert!(!open.contains_key("additionalProperties"));
    }

    #[test]
    fn option_of_a_tagged_or_untagged_enum_admits_null() {
        let tagged = one_of(vec![enum_of(&["A"]), doc! { "bsonType": "object" }]);
        assert_eq!(
            nullable(tagged.clone()),
            doc! { "anyOf": [{ "bsonType": "null" }, tagged] }
        );
        let untagged = any_of(vec![
            doc! { "bsonType": "string" },
            doc! { "bsonType": "int" },
        ]);
        let nullable_untagged = nullable(untagged);
        assert_eq!(
            nullable_untagged.get_array("anyOf").map(Vec::len).ok(),
            Some(3),
            "{nullable_untagged}"
        );
        assert_eq!(nullable(nullable_untagged.clone()), nullable_untagged);
    }

    #[test]
    fn one_branch_needs_no_combinator() {
        assert_eq!(
            one_of(vec![enum_of(&["A", "B"])]),
            doc! { "enum": ["A", "B"] }
        );
        assert_eq!(any_of(Vec::new()), Document::new());
    }

    #[test]
    fn tuples_describe_each_position() {
        assert_eq!(
            tuple_of(vec![i32::bson_schema(), String::bson_schema()]),
            doc! {
                "bsonType": "array", "minItems": 2_i64, "maxItems": 2_i64,
                "items": [i32::bson_schema(), { "bsonType": "string" }],
            }
        );
    }

    #[test]
    fn the_tag_joins_the_content_of_an_internally_tagged_newtype() {
        let content = object_schema(
            vec![Property {
                name: "parts",
                schema: with_max_items(Vec::<String>::bson_schema(), 2),
                required: true,
            }],
            true,
        );
        let tagged = with_tag(content, "kind", "att", true);
        assert_eq!(
            tagged.get_array("required").ok(),
            Some(&vec![Bson::from("parts"), Bson::from("kind")])
        );
        assert_eq!(
            tagged
                .get_document("properties")
                .unwrap()
                .get_document("kind")
                .ok(),
            Some(&doc! { "enum": ["att"] })
        );
        assert_eq!(tagged.get_bool("additionalProperties").ok(), Some(false));

        // A bounded map holds the tag as one more entry.
        let map = with_max_items(HashMap::<String, i32>::bson_schema(), 5);
        assert_eq!(
            with_tag(map, "kind", "m", true)
                .get_i64("maxProperties")
                .ok(),
            Some(6)
        );
        // A unit struct stores the tag alone; unknown content stays open.
        let unit = with_tag(doc! { "bsonType": "null" }, "kind", "u", true);
        assert_eq!(unit.get_bool("additionalProperties").ok(), Some(false));
        let unknown = with_tag(Document::new(), "kind", "x", true);
        assert!(!unknown.contains_key("additionalProperties"));
        // Each branch of an inner enum gets the tag.
        let inner = one_of(vec![
            object_schema(Vec::new(), true),
            object_schema(Vec::new(), true),
        ]);
        let tagged = with_tag(inner, "kind", "e", true);
        for branch in tagged.get_array("oneOf").unwrap() {
            let branch = branch.as_document().unwrap();
            assert!(branch
                .get_document("properties")
                .unwrap()
                .contains_key("kind"));
        }
    }
}
