//! Enum sub-documents in the `$jsonSchema` validator: one branch per variant,
//! in each of serde's representations (externally, internally and adjacently
//! tagged, untagged, unit-only), with the variant's own fields, their
//! `maxItems` and serde's renames. A value of every variant written by the
//! framework is accepted; a raw-driver write that puts one item too many into
//! a variant's bounded array, names a variant that does not exist, or adds a
//! field a variant does not declare is refused by the server (code 121).

use crate::support;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::error::{ErrorKind, WriteFailure};
use mongodb::{Collection, Database};
use schema_core::code::DOCUMENT_VALIDATION_FAILURE;
use schema_core::prelude::*;
use schema_core::Schema;
use serde::{Deserialize, Serialize};

/// Externally tagged (serde's default), every variant shape, renamed.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
enum Shape {
    Empty,
    Tags(#[embed(max = 3)] Vec<String>),
    Pair(i32, #[embed(max = 2)] Vec<i32>),
    Polygon {
        #[embed(max = 3)]
        corner_points: Vec<i32>,
        #[serde(rename = "label")]
        name: String,
    },
}

/// Internally tagged: the tag sits beside the variant's fields.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "UPPERCASE")]
enum Event {
    Ping,
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    Note {
        #[embed(max = 3)]
        text_lines: Vec<String>,
    },
    #[serde(rename = "att")]
    Attach(Attachment),
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Attachment {
    #[embed(max = 2)]
    parts: Vec<String>,
}

/// Adjacently tagged: `{t: variant, c: content}`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Msg {
    Quit,
    Text(#[embed(max = 3)] Vec<String>),
    Move(i32, i32),
    Batch {
        #[embed(max = 3)]
        ids: Vec<i64>,
    },
}

/// Untagged: the content alone; a unit variant is null.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
enum Loose {
    Nothing,
    Many(#[embed(max = 3)] Vec<String>),
    Values {
        #[embed(max = 2)]
        vals: Vec<i32>,
    },
}

/// Tagged variants and a last, untagged one (`#[serde(untagged)]` on the variant).
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Label {
    Named {
        #[embed(max = 2)]
        parts: Vec<String>,
    },
    #[serde(untagged)]
    Free(String),
}

/// Unit-only: the stored name alone.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
enum Color {
    Red,
    #[serde(rename = "verde")]
    Green,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "things")]
struct Thing {
    #[serde(rename = "_id")]
    id: String,
    shape: Shape,
    event: Event,
    msg: Msg,
    loose: Loose,
    color: Color,
    label: Label,
    maybe_event: Option<Event>,
    #[embed(max = 4)]
    history: Vec<Shape>,
}

fn strings(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("s{i}")).collect()
}

/// One thing per row, together covering every variant of every enum, each
/// bounded array at its max.
fn every_variant() -> Vec<Thing> {
    let shapes = [
        Shape::Empty,
        Shape::Tags(strings(3)),
        Shape::Pair(7, vec![1, 2]),
        Shape::Polygon {
            corner_points: vec![1, 2, 3],
            name: "tri".into(),
        },
    ];
    let events = [
        Event::Ping,
        Event::Note {
            text_lines: strings(3),
        },
        Event::Attach(Attachment { parts: strings(2) }),
        Event::Ping,
    ];
    let msgs = [
        Msg::Quit,
        Msg::Text(strings(3)),
        Msg::Move(1, -1),
        Msg::Batch { ids: vec![1, 2, 3] },
    ];
    let loose = [
        Loose::Nothing,
        Loose::Many(strings(3)),
        Loose::Values { vals: vec![4, 5] },
        Loose::Many(Vec::new()),
    ];
    let colors = [Color::Red, Color::Green, Color::Red, Color::Green];
    (0..4)
        .map(|i| Thing {
            id: format!("t{i}"),
            shape: shapes[i].clone(),
            event: events[i].clone(),
            msg: msgs[i].clone(),
            loose: loose[i].clone(),
            color: colors[i],
            label: if i % 2 == 0 {
                Label::Named { parts: strings(2) }
            } else {
                Label::Free(format!("free {i}"))
            },
            maybe_event: (i % 2 == 1).then(|| events[i].clone()),
            history: shapes.to_vec(),
        })
        .collect()
}

async fn setup(test: &str) -> (Database, Repo<Thing>, Collection<BsonDocument>) {
    let client = support::client().await;
    let db = support::fresh_db(&client, test).await;
    Schema::new().with::<Thing>().sync(&db).await.unwrap();
    let repo = Repo::<Thing>::new(&db);
    let raw = db.collection::<BsonDocument>("things");
    (db, repo, raw)
}

/// The server's error code of a raw write.
fn code(err: &mongodb::error::Error) -> Option<i32> {
    match err.kind.as_ref() {
        ErrorKind::Write(WriteFailure::WriteError(w)) => Some(w.code),
        ErrorKind::Command(c) => Some(c.code),
        _ => None,
    }
}

#[tokio::test]
async fn a_value_of_every_variant_is_accepted_and_reads_back() {
    let (_db, things, raw) = setup("enums_accept").await;
    for thing in every_variant() {
        things
            .insert(&thing)
            .await
            .unwrap_or_else(|e| panic!("{thing:?} refused: {e}"));
        assert_eq!(things.get(&thing.id).await.unwrap().as_ref(), Some(&thing));
    }
    // The stored shapes are serde's, with every rename applied.
    let t3 = raw.find_one(doc! { "_id": "t3" }).await.unwrap().unwrap();
    assert_eq!(
        t3.get_document("shape").unwrap(),
        &doc! { "polygon": { "cornerPoints": [1, 2, 3], "label": "tri" } }
    );
    let t1 = raw.find_one(doc! { "_id": "t1" }).await.unwrap().unwrap();
    assert_eq!(
        t1.get_document("event").unwrap(),
        &doc! { "kind": "NOTE", "TEXT_LINES": ["s0", "s1", "s2"] }
    );
    assert_eq!(t1.get_str("label").unwrap(), "free 1");
    let t2 = raw.find_one(doc! { "_id": "t2" }).await.unwrap().unwrap();
    assert_eq!(
        t2.get_document("label").unwrap(),
        &doc! { "named": { "parts": ["s0", "s1"] } }
    );
    assert_eq!(
        t2.get_document("event").unwrap(),
        &doc! { "kind": "att", "parts": ["s0", "s1"] }
    );
    assert_eq!(t2.get_str("color").unwrap(), "Red");
    let t0 = raw.find_one(doc! { "_id": "t0" }).await.unwrap().unwrap();
    assert_eq!(t0.get_document("msg").unwrap(), &doc! { "t": "Quit" });
    assert_eq!(t0.get("loose"), Some(&Bson::Null));
    assert_eq!(t0.get("maybeEvent"), Some(&Bson::Null));
}

/// Each raw write must be refused with code 121 and leave `t` as it was.
async fn assert_refused(raw: &Collection<BsonDocument>, what: &str, update: BsonDocument) {
    let before = raw.find_one(doc! { "_id": "t" }).await.unwrap().unwrap();
    match raw.update_one(doc! { "_id": "t" }, update).await {
        Ok(result) => panic!("{what}: accepted ({result:?})"),
        Err(err) => assert_eq!(
            code(&err),
            Some(DOCUMENT_VALIDATION_FAILURE),
            "{what}: {err}"
        ),
    }
    let after = raw.find_one(doc! { "_id": "t" }).await.unwrap().unwrap();
    assert_eq!(before, after, "{what}: the document changed");
}

async fn insert_base(things: &Repo<Thing>) {
    let mut base = every_variant().remove(3);
    base.id = "t".into();
    things.insert(&base).await.unwrap();
}

#[tokio::test]
async fn a_variant_array_over_its_max_is_refused_by_the_server() {
    let (_db, things, raw) = setup("enums_max").await;
    insert_base(&things).await;
    let four = strings(4);
    let cases = [
        (
            "externally tagged newtype: 4 tags, max 3",
            doc! { "$set": { "shape": { "tags": four.clone() } } },
        ),
        (
            "externally tagged tuple: 3 in the second position, max 2",
            doc! { "$set": { "shape": { "pair": [7, [1, 2, 3]] } } },
        ),
        (
            "externally tagged struct: a push past max 3",
            doc! { "$push": { "shape.polygon.cornerPoints": 4 } },
        ),
        (
            "internally tagged struct: 4 lines, max 3",
            doc! { "$set": { "event": { "kind": "NOTE", "TEXT_LINES": four.clone() } } },
        ),
        (
            "internally tagged newtype: 3 parts, max 2",
            doc! { "$set": { "event": { "kind": "att", "parts": ["a", "b", "c"] } } },
        ),
        (
            "adjacently tagged newtype: 4 texts, max 3",
            doc! { "$set": { "msg": { "t": "Text", "c": four.clone() } } },
        ),
        (
            "adjacently tagged struct: a push past max 3",
            doc! { "$push": { "msg.c.ids": 4_i64 } },
        ),
        (
            "untagged newtype: 4 strings, max 3",
            doc! { "$set": { "loose": four.clone() } },
        ),
        (
            "untagged struct: 3 values, max 2",
            doc! { "$set": { "loose": { "vals": [1, 2, 3] } } },
        ),
        (
            "an optional tagged enum: 4 lines, max 3",
            doc! { "$set": { "maybeEvent": { "kind": "NOTE", "TEXT_LINES": four.clone() } } },
        ),
        (
            "a tagged variant beside an untagged one: 3 parts, max 2",
            doc! { "$set": { "label": { "named": { "parts": ["a", "b", "c"] } } } },
        ),
        (
            "an array of enums: a push into item 1 past max 3",
            doc! { "$push": { "history.1.tags": "x" } },
        ),
    ];
    for (what, update) in cases {
        assert_refused(&raw, what, update).await;
    }
}

#[tokio::test]
async fn a_wrong_tag_or_an_undeclared_variant_field_is_refused() {
    let (_db, things, raw) = setup("enums_shape").await;
    insert_base(&things).await;
    let cases = [
        (
            "no such variant",
            doc! { "$set": { "shape": { "circle": { "r": 1 } } } },
        ),
        (
            "two variants at once",
            doc! { "$set": { "shape": { "tags": [], "empty": [] } } },
        ),
        (
            "the Rust name, not the stored one",
            doc! { "$set": { "shape": "Empty" } },
        ),
        (
            "an undeclared field in a struct variant",
            doc! { "$set": { "shape.polygon.extra": [1, 2, 3] } },
        ),
        (
            "the Rust field name, not the renamed one",
            doc! { "$set": { "shape": { "polygon": { "corner_points": [], "label": "x" } } } },
        ),
        (
            "a unit variant's tag with another variant's fields",
            doc! { "$set": { "event": { "kind": "PING", "TEXT_LINES": [] } } },
        ),
        (
            "an undeclared field beside the tag",
            doc! { "$set": { "event": { "kind": "att", "parts": [], "more": [1] } } },
        ),
        (
            "a variant's required field missing",
            doc! { "$set": { "event": { "kind": "NOTE" } } },
        ),
        (
            "a tag no variant has",
            doc! { "$set": { "event": { "kind": "VINYL" } } },
        ),
        (
            "adjacent content of the wrong shape",
            doc! { "$set": { "msg": { "t": "Move", "c": [1, 2, 3] } } },
        ),
        (
            "an undeclared key beside tag and content",
            doc! { "$set": { "msg": { "t": "Quit", "x": 1 } } },
        ),
        (
            "an untagged value matching no variant",
            doc! { "$set": { "loose": 5 } },
        ),
        (
            "neither the tagged nor the untagged variant",
            doc! { "$set": { "label": 5 } },
        ),
        (
            "a unit-only enum's unknown name",
            doc! { "$set": { "color": "Green" } },
        ),
    ];
    for (what, update) in cases {
        assert_refused(&raw, what, update).await;
    }
    // The same paths with a valid value are accepted (the refusals above are
    // about the values, not the paths).
    raw.update_one(
        doc! { "_id": "t" },
        doc! { "$set": { "shape": { "tags": ["a"] }, "color": "verde", "loose": ["x"] } },
    )
    .await
    .unwrap();
}

/// What the validators rely on from the server's `$jsonSchema`: `oneOf`
/// (exactly one branch), `anyOf`, `enum`, `additionalProperties: false`,
/// `required`, `maxItems`, positional `items`, and an integer's `minimum` and
/// `maximum`. Each keyword is tried alone on a collection of its own,
/// accepted and refused.
#[tokio::test]
async fn the_server_enforces_every_keyword_the_validators_use() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "enums_keywords").await;
    let cases: [(&str, BsonDocument, Bson, Bson); 9] = [
        (
            "oneOf",
            doc! { "oneOf": [{ "bsonType": "int" }, { "bsonType": ["int", "string"] }] },
            Bson::String("s".into()),
            Bson::Int32(1), // both branches: not exactly one
        ),
        (
            "anyOf",
            doc! { "anyOf": [{ "bsonType": "int" }, { "bsonType": "string" }] },
            Bson::Int32(1),
            Bson::Boolean(true),
        ),
        (
            "enum",
            doc! { "enum": ["a", "b"] },
            Bson::String("b".into()),
            Bson::String("c".into()),
        ),
        (
            "additionalProperties",
            doc! { "bsonType": "object", "properties": { "a": {} }, "additionalProperties": false },
            Bson::Document(doc! { "a": 1 }),
            Bson::Document(doc! { "a": 1, "b": 2 }),
        ),
        (
            "required",
            doc! { "bsonType": "object", "required": ["a"] },
            Bson::Document(doc! { "a": 1 }),
            Bson::Document(doc! { "b": 1 }),
        ),
        (
            "maxItems",
            doc! { "bsonType": "array", "maxItems": 2_i64 },
            Bson::Array(vec![1.into(), 2.into()]),
            Bson::Array(vec![1.into(), 2.into(), 3.into()]),
        ),
        (
            "items",
            doc! { "bsonType": "array", "items": [{ "bsonType": "int" }, { "bsonType": "string" }] },
            Bson::Array(vec![1.into(), "x".into()]),
            Bson::Array(vec!["x".into(), 1.into()]),
        ),
        // An integer type's range (`u8`: a long of 255 decodes, 256 does not).
        (
            "minimum",
            doc! { "bsonType": ["int", "long"], "minimum": 0_i64 },
            Bson::Int64(0),
            Bson::Int32(-1),
        ),
        (
            "maximum",
            doc! { "bsonType": ["int", "long"], "maximum": 255_i64 },
            Bson::Int64(255),
            Bson::Int64(256),
        ),
    ];
    for (keyword, schema, good, bad) in cases {
        db.create_collection(keyword)
            .validator(doc! { "$jsonSchema": { "properties": { "v": schema } } })
            .await
            .unwrap();
        let coll = db.collection::<BsonDocument>(keyword);
        coll.insert_one(doc! { "v": good })
            .await
            .unwrap_or_else(|e| panic!("{keyword}: a valid value refused: {e}"));
        let err = coll.insert_one(doc! { "v": bad }).await.unwrap_err();
        assert_eq!(
            code(&err),
            Some(DOCUMENT_VALIDATION_FAILURE),
            "{keyword}: {err}"
        );
    }
}

/// A generic enum: each variant's branch holds its type parameter's schema.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Either<A, B> {
    Left(A),
    Right {
        #[embed(max = 2)]
        values: Vec<B>,
    },
}

#[test]
fn a_generic_enum_describes_each_variant_with_its_parameters() {
    let schema = <Either<String, i64>>::bson_schema();
    assert_eq!(
        schema,
        doc! { "oneOf": [
            {
                "bsonType": "object",
                "required": ["Left"],
                "properties": { "Left": { "bsonType": "string" } },
                "additionalProperties": false,
            },
            {
                "bsonType": "object",
                "required": ["Right"],
                "properties": { "Right": {
                    "bsonType": "object",
                    "required": ["values"],
                    "properties": { "values": {
                        "bsonType": "array", "items": i64::bson_schema(), "maxItems": 2_i64,
                    } },
                    "additionalProperties": false,
                } },
                "additionalProperties": false,
            },
        ] }
    );
}
