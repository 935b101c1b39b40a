//! Fixed-size values the bound rule accepts: tuples up to 12 elements of
//! bounded values, fixed arrays of tuples, `Cow<'static, str>`, `NonZero*`
//! integers, `PhantomData`, byte buffers under `serde_bytes` and the
//! `bson::serde_helpers` encodings, and the collections `#[embed(max = N)]`
//! now accepts beside `Vec` (`LinkedList`, `Box<[T]>`, `Cow<[T]>`). The model compiles;
//! its validator describes each field; and a real server accepts what serde
//! stores for it under that validator.
#![deny(warnings)]

use crate::support;

use std::borrow::Cow;
use std::collections::LinkedList;
use std::marker::PhantomData;
use std::num::{NonZeroI64, NonZeroU16, NonZeroU32, NonZeroU8};

use bson::{doc, Bson};
use schema_core::prelude::*;
use schema_core::Schema;
use serde::{Deserialize, Serialize};

type Twelve = (
    u8,
    i16,
    i32,
    i64,
    f32,
    f64,
    bool,
    char,
    String,
    u16,
    u32,
    Option<i64>,
);

#[derive(Document, Serialize, Deserialize, Debug, PartialEq)]
#[document(collection = "surveys")]
struct Survey {
    #[serde(rename = "_id")]
    id: String,
    /// A polygon with four corners.
    corners: [(f64, f64); 4],
    pair: (String, i32),
    twelve: Twelve,
    title: Cow<'static, str>,
    votes: NonZeroU32,
    rank: NonZeroI64,
    level: Option<NonZeroU8>,
    port: NonZeroU16,
    marker: PhantomData<Vec<String>>,
    #[serde(with = "serde_bytes")]
    thumbnail: Vec<u8>,
    #[serde(with = "serde_bytes")]
    icon: Option<Vec<u8>>,
    raw: bson::Binary,
    #[serde(with = "bson::serde_helpers::object_id::FromHexString")]
    owner: String,
    #[embed(max = 3)]
    recent: LinkedList<String>,
    #[embed(max = 4)]
    weights: Box<[i32]>,
    #[embed(max = 2)]
    aliases: Cow<'static, [String]>,
    origin: Point,
}

/// A sub-document made of fixed-size values only.
#[derive(Embedded, Serialize, Deserialize, Debug, PartialEq)]
struct Point {
    at: (f64, f64, f64),
    label: Cow<'static, str>,
}

fn survey() -> Survey {
    Survey {
        id: "s1".into(),
        corners: [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
        pair: ("left".into(), 7),
        twelve: (
            1,
            -2,
            3,
            -4,
            5.5,
            6.25,
            true,
            'x',
            "twelve".into(),
            16,
            32,
            None,
        ),
        title: Cow::Borrowed("favourite colour"),
        votes: NonZeroU32::new(42).unwrap(),
        rank: NonZeroI64::new(-3).unwrap(),
        level: NonZeroU8::new(2),
        port: NonZeroU16::new(27017).unwrap(),
        marker: PhantomData,
        thumbnail: vec![0xff, 0xd8, 0xff],
        icon: None,
        raw: bson::Binary {
            subtype: bson::spec::BinarySubtype::Generic,
            bytes: vec![1, 2, 3],
        },
        owner: "65a1b2c3d4e5f60718293a4b".into(),
        recent: ["a", "b"].iter().map(|s| s.to_string()).collect(),
        weights: vec![1, 2, 3].into_boxed_slice(),
        aliases: Cow::Owned(vec!["poll".into()]),
        origin: Point {
            at: (1.0, 2.0, 3.0),
            label: Cow::Borrowed("origin"),
        },
    }
}

fn property(name: &str) -> bson::Document {
    let validator = Survey::validator();
    let schema = validator.get_document("$jsonSchema").unwrap();
    schema
        .get_document("properties")
        .unwrap()
        .get_document(name)
        .unwrap_or_else(|_| panic!("no property {name}"))
        .clone()
}

#[test]
fn tuples_are_arrays_of_their_length() {
    assert_eq!(
        property("pair"),
        doc! {
            "bsonType": "array",
            "minItems": 2_i64,
            "maxItems": 2_i64,
            "items": [{ "bsonType": "string" }, i32::bson_schema()],
        }
    );
    let twelve = property("twelve");
    assert_eq!(twelve.get_i64("minItems").unwrap(), 12);
    assert_eq!(twelve.get_i64("maxItems").unwrap(), 12);
}

#[test]
fn a_fixed_array_of_tuples_is_bounded_twice() {
    assert_eq!(
        property("corners"),
        doc! {
            "bsonType": "array",
            "items": {
                "bsonType": "array",
                "minItems": 2_i64,
                "maxItems": 2_i64,
                "items": [f64::bson_schema(), f64::bson_schema()],
            },
            "minItems": 4_i64,
            "maxItems": 4_i64,
        }
    );
}

#[test]
fn wrappers_are_described_as_what_they_store() {
    assert_eq!(property("title"), doc! { "bsonType": "string" });
    assert_eq!(property("votes"), u32::bson_schema());
    assert_eq!(property("rank"), i64::bson_schema());
    assert_eq!(property("level"), Option::<u8>::bson_schema());
    assert_eq!(property("marker"), doc! { "bsonType": "null" });
    assert_eq!(property("raw"), doc! { "bsonType": "binData" });
    assert_eq!(
        property("recent"),
        doc! { "bsonType": "array", "items": { "bsonType": "string" }, "maxItems": 3_i64 }
    );
    assert_eq!(
        property("weights"),
        doc! { "bsonType": "array", "items": i32::bson_schema(), "maxItems": 4_i64 }
    );
    assert_eq!(
        property("aliases"),
        doc! { "bsonType": "array", "items": { "bsonType": "string" }, "maxItems": 2_i64 }
    );
    assert_eq!(
        Survey::FIELDS.recent.max(),
        3,
        "LinkedList takes #[embed(max)]"
    );
}

#[tokio::test]
async fn the_server_accepts_what_serde_stores_under_the_validator() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "fixed_size").await;
    Schema::new().with::<Survey>().sync(&db).await.unwrap();
    let surveys = Repo::<Survey>::new(&db);
    let stored = survey();
    surveys.insert(&stored).await.unwrap();
    assert_eq!(surveys.get(&"s1".to_owned()).await.unwrap(), Some(stored));

    // The bytes are one binary value, not an array of numbers.
    let raw = db
        .collection::<bson::Document>("surveys")
        .find_one(doc! { "_id": "s1" })
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(raw.get("thumbnail"), Some(Bson::Binary(_))));
    assert!(matches!(raw.get("owner"), Some(Bson::ObjectId(_))));

    // And the validator holds: a tuple of the wrong length is refused.
    let err = db
        .collection::<bson::Document>("surveys")
        .update_one(
            doc! { "_id": "s1" },
            doc! { "$set": { "pair": ["only one"] } },
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("121") || format!("{err:?}").contains("121"),
        "{err}"
    );
}
