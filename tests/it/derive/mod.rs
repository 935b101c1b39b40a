//! The derive's output for the seed models, checked without a server, and
//! the derive's less common features (enums, generics, the subset pattern,
//! the `crate` override, shadowed prelude names).
#![deny(warnings)]

mod fixed_size;

use crate::models;

use bson::{doc, Bson};
use models::*;
use schema_core::prelude::*;
use schema_core::Stamp;
use schema_core::{Direction, IndexSpec, Relation};
use schema_core::{IndexOrigin, DEFAULT_LINK_MAX};

fn keys(spec: &IndexSpec) -> Vec<(&str, Direction)> {
    spec.keys.iter().map(|(k, d)| (k.as_str(), *d)).collect()
}

fn strings(values: &[Bson]) -> Vec<&str> {
    values.iter().filter_map(Bson::as_str).collect()
}

#[test]
fn collections_and_names() {
    assert_eq!(User::COLLECTION, "users");
    assert_eq!(Post::COLLECTION, "posts");
    assert_eq!(Student::COLLECTION, "students");
    assert_eq!(Course::COLLECTION, "courses");
    assert_eq!(Order::COLLECTION, "orders");
    assert_eq!(Product::COLLECTION, "products");
    assert_eq!(Post::NAME, "Post");
}

#[test]
fn fields_carry_stored_names() {
    assert_eq!(Post::FIELDS.id.name(), "_id");
    assert_eq!(Post::FIELDS.author_id.name(), "authorId");
    assert_eq!(Post::FIELDS.at.name(), "at");
    assert_eq!(Post::FIELDS.tags.name(), "tags");
    assert_eq!(Post::FIELDS.tags.max(), 10);
    assert_eq!(Post::FIELDS.author_id.sort(), Some(("at", Direction::Desc)));
    assert_eq!(User::FIELDS.profile.name(), "profile");
    assert_eq!(Order::FIELDS.items.max(), 100);
    assert_eq!(Order::FIELDS.order_number.name(), "order_number");
    assert_eq!(Product::FIELDS.current_price.name(), "current_price");
    let filter = Post::FIELDS.author_id.field().eq(&"user_42".to_owned());
    assert_eq!(
        filter.into_document().unwrap(),
        doc! { "authorId": "user_42" }
    );
}

#[test]
fn id_accessor() {
    let product = Product {
        id: "p1".into(),
        name: "Pen".into(),
        current_price: 2.5,
    };
    assert_eq!(product.id(), "p1");
}

#[test]
fn reference_index_is_compound_and_named_as_the_server_does() {
    let indexes = Post::indexes();
    assert_eq!(indexes.len(), 1);
    // `_id` last, in the sort key's direction: ties come in one order.
    assert_eq!(indexes[0].name, "authorId_1_at_-1__id_-1");
    assert_eq!(
        keys(&indexes[0]),
        vec![
            ("authorId", Direction::Asc),
            ("at", Direction::Desc),
            ("_id", Direction::Desc)
        ]
    );
    assert_eq!(indexes[0].origin, IndexOrigin::Reference("author_id"));
    assert!(!indexes[0].unique);
    assert_eq!(
        indexes[0].key_document(),
        doc! { "authorId": 1, "at": -1, "_id": -1 }
    );
}

#[test]
fn relations_name_their_targets() {
    assert_eq!(
        Post::relations(),
        vec![
            Relation::Reference {
                field: "author_id",
                stored: "authorId",
                target: Some("users"),
                sort: Some(("at", Direction::Desc)),
                on_delete: None,
            },
            Relation::Embed {
                field: "tags",
                stored: "tags",
                max: 10,
            },
        ]
    );
    assert_eq!(
        Student::relations(),
        vec![Relation::ManyToMany {
            field: "course_ids",
            stored: "courseIds",
            target: "courses",
            stamp: Stamp::of::<Course>(),
            inverse: Some("studentIds"),
            max: 50,
        }]
    );
    assert!(Student::relations()[0].needs_transaction());
}

#[test]
fn two_sided_links_know_their_inverse() {
    assert_eq!(Student::FIELDS.course_ids.name(), "courseIds");
    assert_eq!(
        Student::FIELDS.course_ids.inverse_name(),
        Some("studentIds")
    );
    assert_eq!(Course::FIELDS.student_ids.inverse_name(), Some("courseIds"));
    assert!(Student::FIELDS.course_ids.is_two_sided());
    assert_eq!(Student::FIELDS.course_ids.max(), 50);
    assert_eq!(Course::FIELDS.student_ids.max(), 500);
    assert_eq!(DEFAULT_LINK_MAX, 1000);

    let indexes = Student::indexes();
    assert_eq!(indexes.len(), 1);
    assert_eq!(indexes[0].name, "courseIds_1");
    assert_eq!(indexes[0].origin, IndexOrigin::ManyToMany("course_ids"));
}

#[test]
fn container_indexes_keep_their_options() {
    let indexes = Order::indexes();
    let names: Vec<&str> = indexes.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "order_number_1",
            "by_customer",
            "expire_quotes",
            "customer.email_1"
        ]
    );
    assert!(indexes.iter().all(|i| i.origin == IndexOrigin::Declared));

    assert!(indexes[0].unique);
    assert_eq!(
        keys(&indexes[1]),
        vec![
            ("customer_id", Direction::Asc),
            ("placed_at", Direction::Desc)
        ]
    );
    assert!(!indexes[1].unique);

    let ttl = &indexes[2];
    assert_eq!(
        ttl.expire_after,
        Some(std::time::Duration::from_secs(7_776_000))
    );
    assert_eq!(ttl.partial_filter, Some(doc! { "status": "quote" }));

    let sparse = &indexes[3];
    assert!(sparse.sparse);
    assert_eq!(keys(sparse), vec![("customer.email", Direction::Asc)]);
    assert_eq!(
        sparse.partial_filter,
        Some(doc! { "status": { "$exists": true }, "total": { "$gt": 0, "$lte": 100000 } })
    );

    let users = User::indexes();
    assert_eq!(users.len(), 1);
    assert_eq!(users[0].name, "email_1");
    assert!(users[0].unique);
    assert!(Product::indexes().is_empty());
}

#[test]
fn validator_bounds_embedded_arrays_and_nests_sub_documents() {
    let validator = Order::validator();
    let schema = validator.get_document("$jsonSchema").unwrap();
    assert_eq!(schema.get_str("bsonType").unwrap(), "object");
    let properties = schema.get_document("properties").unwrap();
    let items = properties.get_document("items").unwrap();
    assert_eq!(items.get_str("bsonType").unwrap(), "array");
    assert_eq!(items.get_i64("maxItems").unwrap(), 100);
    let item = items.get_document("items").unwrap();
    assert_eq!(item.get_str("bsonType").unwrap(), "object");
    let item_properties = item.get_document("properties").unwrap();
    assert_eq!(
        item_properties.get_document("productId").unwrap(),
        &doc! { "bsonType": "string" }
    );
    assert_eq!(
        item_properties.get_document("unit_price").unwrap(),
        &f64::bson_schema()
    );
    assert_eq!(
        strings(item.get_array("required").unwrap()),
        ["productId", "name", "unit_price", "quantity"]
    );
    assert_eq!(
        strings(schema.get_array("required").unwrap()),
        [
            "_id",
            "order_number",
            "status",
            "customer_id",
            "placed_at",
            "total",
            "items"
        ]
    );
    assert_eq!(
        properties.get_document("_id").unwrap(),
        &doc! { "bsonType": "objectId" }
    );
}

#[test]
fn rename_all_and_optional_fields() {
    let schema = User::json_schema();
    let profile = schema
        .get_document("properties")
        .unwrap()
        .get_document("profile")
        .unwrap();
    let profile_properties = profile.get_document("properties").unwrap();
    let names: Vec<&str> = profile_properties.keys().map(String::as_str).collect();
    assert_eq!(names, ["displayName", "bio", "joinedYear"]);
    assert_eq!(
        profile_properties.get_document("bio").unwrap(),
        &doc! { "bsonType": ["string", "null"] }
    );
    // `bio` has `default`/`skip_serializing_if` and is an Option: not required.
    assert_eq!(
        strings(profile.get_array("required").unwrap()),
        ["displayName", "joinedYear"]
    );

    let post = Post::json_schema();
    let properties = post.get_document("properties").unwrap();
    let names: Vec<&str> = properties.keys().map(String::as_str).collect();
    assert_eq!(names, ["_id", "authorId", "title", "tags", "at"]);
    assert_eq!(
        properties.get_document("tags").unwrap(),
        &doc! { "bsonType": "array", "items": { "bsonType": "string" }, "maxItems": 10_i64 }
    );
    assert_eq!(
        properties.get_document("at").unwrap(),
        &doc! { "bsonType": "date" }
    );

    let student = Student::json_schema();
    let course_ids = student
        .get_document("properties")
        .unwrap()
        .get_document("courseIds")
        .unwrap();
    assert_eq!(course_ids.get_i64("maxItems").unwrap(), 50);
}

#[test]
fn round_trips_through_bson_with_the_stored_names() {
    let post = Post {
        id: "post_7".into(),
        author_id: "user_42".into(),
        title: "Post 7".into(),
        tags: vec!["mongodb".into(), "modeling".into()],
        at: bson::DateTime::from_millis(1_700_000_000_000),
    };
    let stored = bson::serialize_to_document(&post).unwrap();
    let names: Vec<&str> = stored.keys().map(String::as_str).collect();
    let schema = Post::json_schema();
    let declared: Vec<&str> = schema
        .get_document("properties")
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(names, declared);
    let back: Post = bson::deserialize_from_document(stored).unwrap();
    assert_eq!(back, post);
}

/// Sub-documents of every shape, the subset pattern and the escape hatch.
mod features {
    use bson::doc;
    use schema_core::prelude::*;
    use schema_core::{Keep, Relation};
    use serde::{Deserialize, Serialize};

    #[derive(Embedded, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
    #[serde(rename_all = "snake_case")]
    pub enum Status {
        Draft,
        InReview,
        #[serde(rename = "live")]
        Published,
    }

    #[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(tag = "type", rename_all = "lowercase")]
    pub enum Details {
        Book { pages: i32 },
        Dvd { minutes: i32 },
    }

    #[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Email(pub String);

    #[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Range<T> {
        pub low: T,
        pub high: T,
    }

    #[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    #[document(collection = "items")]
    pub struct Item {
        #[serde(rename = "_id")]
        pub id: bson::oid::ObjectId,
        pub status: Status,
        pub details: Details,
        pub contact: Option<Email>,
        pub price_range: Range<f64>,
        #[embed(max = 5)]
        pub sizes: Vec<Option<Range<i32>>>,
        #[embed(max = 20)]
        pub labels: std::collections::BTreeMap<String, String>,
        #[embed(unbounded = "free-form import metadata, capped by the importer")]
        pub raw: bson::Document,
        #[serde(skip)]
        pub cache: Vec<String>,
        #[serde(with = "bson::serde_helpers::u64::AsF64")]
        pub views: u64,
        #[serde(default)]
        pub note: String,
    }

    /// The subset pattern: the newest 10 messages stay embedded, every
    /// message is kept in its own collection.
    #[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[document(collection = "rooms")]
    pub struct Room {
        #[serde(rename = "_id")]
        pub id: String,
        #[embed(max = 10, keep = "newest", history = Message)]
        pub recent: Vec<Message>,
        #[reference(index, unique, to = Self)]
        pub parent_id: Option<String>,
    }

    #[derive(Document, Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    #[document(collection = "messages")]
    pub struct Message {
        #[serde(rename = "_id")]
        pub id: String,
        #[reference(index, to = Room, sort(n = desc))]
        pub room_id: String,
        pub n: i64,
        pub text: String,
    }

    #[test]
    fn unit_enums_list_their_stored_names() {
        assert_eq!(
            Status::bson_schema(),
            doc! { "enum": ["draft", "in_review", "live"] }
        );
    }

    #[test]
    fn tagged_enums_have_one_closed_branch_per_variant() {
        assert_eq!(
            Details::bson_schema(),
            doc! { "oneOf": [
                {
                    "bsonType": "object",
                    "required": ["type", "pages"],
                    "properties": { "type": { "enum": ["book"] }, "pages": i32::bson_schema() },
                    "additionalProperties": false,
                },
                {
                    "bsonType": "object",
                    "required": ["type", "minutes"],
                    "properties": { "type": { "enum": ["dvd"] }, "minutes": i32::bson_schema() },
                    "additionalProperties": false,
                },
            ] }
        );
    }

    #[test]
    fn newtypes_and_generics() {
        assert_eq!(Email::bson_schema(), doc! { "bsonType": "string" });
        let range = <Range<f64>>::bson_schema();
        assert_eq!(
            range.get_document("properties").unwrap(),
            &doc! { "low": f64::bson_schema(), "high": f64::bson_schema() }
        );
    }

    #[test]
    fn skipped_custom_and_default_fields() {
        let schema = Item::json_schema();
        let properties = schema.get_document("properties").unwrap();
        assert!(!properties.contains_key("cache"));
        assert_eq!(properties.get_document("views").unwrap(), &doc! {});
        assert_eq!(
            properties.get_document("raw").unwrap(),
            &doc! { "bsonType": "object" }
        );
        assert_eq!(
            properties
                .get_document("labels")
                .unwrap()
                .get_i64("maxProperties")
                .unwrap(),
            20
        );
        let required: Vec<&str> = schema
            .get_array("required")
            .unwrap()
            .iter()
            .filter_map(|b| b.as_str())
            .collect();
        assert_eq!(
            required,
            [
                "_id",
                "status",
                "details",
                "priceRange",
                "sizes",
                "labels",
                "raw",
                "views"
            ]
        );
        assert_eq!(Item::FIELDS.price_range.name(), "priceRange");
        assert_eq!(Item::FIELDS.raw.name(), "raw");
        assert_eq!(
            Item::relations(),
            vec![
                Relation::Embed {
                    field: "sizes",
                    stored: "sizes",
                    max: 5
                },
                Relation::Embed {
                    field: "labels",
                    stored: "labels",
                    max: 20
                },
            ]
        );
    }

    #[test]
    fn subset_pattern_and_self_reference() {
        assert_eq!(Room::FIELDS.recent.max(), 10);
        assert_eq!(Room::FIELDS.recent.keep(), Some(Keep::Newest));
        assert_eq!(Room::FIELDS.recent.history_collection(), Some("messages"));
        let indexes = Room::indexes();
        assert_eq!(indexes[0].name, "parent_id_1");
        assert!(indexes[0].unique);
        assert_eq!(
            Room::relations()[1],
            Relation::Reference {
                field: "parent_id",
                stored: "parent_id",
                target: Some("rooms"),
                sort: None,
                on_delete: None,
            }
        );
        assert_eq!(Message::indexes()[0].name, "roomId_1_n_-1__id_-1");
        // A type can be a document and a sub-document at once.
        let schema = Room::json_schema();
        let recent = schema
            .get_document("properties")
            .unwrap()
            .get_document("recent")
            .unwrap();
        assert_eq!(recent.get_i64("maxItems").unwrap(), 10);
        assert!(recent
            .get_document("items")
            .unwrap()
            .get_document("properties")
            .unwrap()
            .contains_key("roomId"));
    }
}

/// Generated code names everything by absolute paths: a user's own
/// `Result`, `Option`, `Vec`, `String`, `Some`, `None` or `bson` do not break it.
mod shadowing {
    #![allow(dead_code, non_camel_case_types)]
    use ::schema_core::{Document, Embedded};
    use serde::{Deserialize, Serialize};

    struct Result;
    struct Option;
    struct Vec;
    struct Some;
    struct None;
    struct Ok;
    struct Box;
    struct bool;
    mod bson {}
    mod core {}
    mod std {}

    #[derive(Embedded, Serialize, Deserialize)]
    pub struct Inner {
        pub n: i32,
    }

    #[derive(Document, Serialize, Deserialize)]
    #[document(collection = "shadows", index(keys(at = desc), name = "by_at", partial(n(gt = 1))))]
    pub struct Shadowed {
        #[serde(rename = "_id")]
        pub id: ::std::string::String,
        #[reference(index, sort(at = desc))]
        pub owner: ::std::string::String,
        pub at: i64,
        #[embed(max = 3)]
        pub inner: ::std::vec::Vec<Inner>,
        pub n: i32,
    }

    #[test]
    fn expands() {
        assert_eq!(<Shadowed as Document>::indexes().len(), 2);
        assert_eq!(<Shadowed as Document>::FIELDS.owner.name(), "owner");
    }
}

/// `#[document(crate = "...")]` for a crate that re-exports schema_core.
mod crate_override {
    pub mod reexport {
        pub use schema_core;
    }
    use schema_core::Document as _;
    use serde::{Deserialize, Serialize};

    #[derive(schema_core::Embedded, Serialize, Deserialize)]
    #[document(crate = "crate::derive::crate_override::reexport::schema_core")]
    pub struct Part {
        pub name: String,
    }

    #[derive(schema_core::Document, Serialize, Deserialize)]
    #[document(
        collection = "machines",
        crate = "crate::derive::crate_override::reexport::schema_core"
    )]
    pub struct Machine {
        #[serde(rename = "_id")]
        pub id: String,
        #[embed(max = 4)]
        pub parts: Vec<Part>,
    }

    #[test]
    fn expands() {
        assert_eq!(Machine::COLLECTION, "machines");
        assert_eq!(Machine::FIELDS.parts.max(), 4);
    }
}
