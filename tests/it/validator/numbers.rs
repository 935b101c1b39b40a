//! The validator accepts the numbers the model decodes, as an older program
//! wrote them with the raw driver: an int where the model says `i64`, ints
//! and longs mixed in one field, a long of a small value where it says
//! `i32`, whole numbers stored as ints in an `f64` field. `plan` finds no
//! document failing the validator, `sync` applies it, every document reads
//! back; and it refuses what the model cannot decode: a double where it
//! says an integer, a value past the type's range (300 in a `u8`, a
//! negative `u32`).

use crate::support;

use bson::{doc, Bson, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::{code, Error, Schema, Step};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "readings")]
struct Reading {
    #[serde(rename = "_id")]
    id: i64,
    count: i64,
    small: i32,
    level: u8,
    total: u32,
    price: f64,
    priority: Option<i64>,
    #[embed(max = 4)]
    samples: Vec<i64>,
}

/// Reading `i` as an older program stored it: the integers as ints or
/// longs by turn, the price an int when whole.
fn stored(i: i32) -> BsonDocument {
    let int_or_long = |n: i32| {
        if i % 2 == 0 {
            Bson::Int32(n)
        } else {
            Bson::Int64(i64::from(n))
        }
    };
    let price = if i % 3 == 0 {
        Bson::Int32(i)
    } else {
        Bson::Double(f64::from(i) + 0.25)
    };
    let mut d = doc! {
        "_id": int_or_long(i),
        "count": int_or_long(i * 1000),
        "small": int_or_long(-i),
        "level": int_or_long(i % 256),
        "total": int_or_long(i),
        "price": price,
        "samples": [Bson::Int32(1), Bson::Int64(2)],
    };
    if i % 5 != 0 {
        d.insert("priority", int_or_long(i % 4));
    }
    d
}

#[tokio::test]
async fn the_validator_accepts_every_integer_type_its_rust_type_decodes() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "validator_numbers").await;
    let raw = db.collection::<BsonDocument>("readings");
    raw.insert_many((0..60).map(stored)).await.unwrap();
    let schema = Schema::new().with::<Reading>();

    // The plan counts no document the new validator would refuse.
    let plan = schema.plan(&db).await.unwrap();
    let update = plan
        .steps
        .iter()
        .find_map(|s| match s {
            Step::UpdateValidator { violators, .. } => Some(violators),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a validator to add: {plan}"));
    assert!(update.is_empty(), "{plan}");
    schema.sync(&db).await.unwrap();
    let plan = schema.plan(&db).await.unwrap();
    assert!(plan.is_empty(), "{plan}");

    // Every document reads as the model.
    let repo = Repo::<Reading>::new(&db);
    let all = repo.find(doc! {}).scan().all().await.unwrap();
    assert_eq!(all.len(), 60);
    assert!(all.iter().any(|r| r.price == 3.0 && r.count == 3000));

    // The model's own writes, and the old program's, still pass.
    let mine = Reading {
        id: 1_000,
        count: i64::MAX,
        small: i32::MIN,
        level: 255,
        total: u32::MAX,
        price: 1.5,
        priority: None,
        samples: vec![1, 2, 3, 4],
    };
    repo.insert(&mine).await.unwrap();
    assert_eq!(repo.get(&1_000).await.unwrap(), Some(mine));
    raw.insert_one(stored(61)).await.unwrap();

    // What the model cannot decode is refused (code 121), field by field.
    let refused = [
        ("count", Bson::Double(2.0)),
        ("small", Bson::Int64(i64::from(i32::MAX) + 1)),
        ("level", Bson::Int32(300)),
        ("level", Bson::Int64(-1)),
        ("total", Bson::Int32(-5)),
        ("priority", Bson::Double(1.5)),
        ("price", Bson::String("1.5".into())),
    ];
    for (at, (field, value)) in refused.into_iter().enumerate() {
        let mut bad = stored(100 + at as i32);
        bad.insert("_id", 100 + at as i64);
        bad.insert(field, value.clone());
        let err = raw.insert_one(bad.clone()).await.unwrap_err();
        assert_eq!(
            Error::from(err).code(),
            Some(code::DOCUMENT_VALIDATION_FAILURE),
            "{field}: {value:?}"
        );
        // The model would not read it either.
        assert!(
            bson::deserialize_from_document::<Reading>(bad).is_err(),
            "{field}: {value:?}"
        );
    }
    assert_eq!(repo.count(doc! {}).scan().await.unwrap(), 62);
}
