//! The validator accepts what the framework writes: a model holding the
//! types whose stored form differs from their Rust form (an enum sub-document
//! behind `Option`, `SystemTime`, `Uuid`, unsigned and small integers,
//! `usize`, `char`, an `Option` array stored as null) is inserted through
//! the validator and reads back equal, while a raw write of a wrong type is
//! refused by that same validator.

use crate::support;

use bson::doc;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Status {
    Draft,
    Live,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "things")]
struct Thing {
    #[serde(rename = "_id")]
    id: String,
    status: Option<Status>,
    when: std::time::SystemTime,
    uuid: bson::Uuid,
    small: u8,
    tiny: i8,
    mid: u32,
    big: u64,
    size: usize,
    letter: char,
    #[embed(max = 3)]
    labels: Option<Vec<String>>,
}

fn thing(id: &str) -> Thing {
    Thing {
        id: id.into(),
        status: None,
        when: std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(5),
        uuid: bson::Uuid::new(),
        small: 200,
        tiny: -3,
        mid: 4_000_000_000,
        big: 9,
        size: 7,
        letter: 'x',
        labels: None,
    }
}

#[tokio::test]
async fn the_validator_accepts_what_the_framework_writes() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "validator_stored_types").await;
    Schema::new().with::<Thing>().sync(&db).await.unwrap();
    let things = Repo::<Thing>::new(&db);
    let a = thing("a");
    things.insert(&a).await.unwrap();
    let mut b = thing("b");
    b.status = Some(Status::Live);
    b.labels = Some(vec!["x".into()]);
    things.insert(&b).await.unwrap();
    assert_eq!(things.get(&"a".to_owned()).await.unwrap(), Some(a));
    assert_eq!(things.get(&"b".to_owned()).await.unwrap(), Some(b));

    // The validator is on: a raw insert that stores `small` as a string is
    // refused (code 121), so the inserts above passed it.
    let mut raw = bson::serialize_to_document(&thing("c")).unwrap();
    raw.insert("small", "two hundred");
    let err = db
        .collection::<bson::Document>(Thing::COLLECTION)
        .insert_one(raw)
        .await
        .unwrap_err();
    assert_eq!(
        Error::from(err).code(),
        Some(schema_core::code::DOCUMENT_VALIDATION_FAILURE),
    );
    assert_eq!(
        db.collection::<bson::Document>(Thing::COLLECTION)
            .count_documents(doc! {})
            .await
            .unwrap(),
        2
    );
}
