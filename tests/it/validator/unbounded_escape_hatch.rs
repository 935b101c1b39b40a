//! `#[embed(unbounded = "reason")]` keeps any field, also of a type that has
//! no `$jsonSchema` description (a type from another crate, stored as one
//! value): the validator leaves such a field unconstrained (`{}`), while a
//! described type (`Vec<String>`) keeps its description. Documents of the
//! model are stored through the validator on the server.

use crate::support;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::error::{ErrorKind, WriteFailure};
use schema_core::code;
use schema_core::prelude::*;
use schema_core::Schema;
use serde::{Deserialize, Serialize};

/// Serializable, but neither `Embedded` nor `BsonSchema`: what a type from
/// another crate looks like to the derive.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Opaque {
    a: i32,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "kept")]
struct Kept {
    #[serde(rename = "_id")]
    id: String,
    #[embed(unbounded = "one value of another crate's type")]
    opaque: Opaque,
    #[embed(unbounded = "one value of another crate's type, or none")]
    maybe: Option<Opaque>,
    #[embed(unbounded = "a log that nothing bounds")]
    log: Vec<String>,
}

fn properties() -> BsonDocument {
    let validator = <Kept as schema_core::Document>::validator();
    let schema = validator.get_document("$jsonSchema").unwrap();
    schema.get_document("properties").unwrap().clone()
}

#[test]
fn an_undescribed_type_is_unconstrained_and_a_described_one_keeps_its_schema() {
    let properties = properties();
    assert_eq!(
        properties.get_document("opaque").ok(),
        Some(&BsonDocument::new())
    );
    assert_eq!(
        properties.get_document("maybe").ok(),
        Some(&BsonDocument::new())
    );
    assert_eq!(
        properties.get_document("log").ok(),
        Some(&doc! { "bsonType": "array", "items": { "bsonType": "string" } })
    );
    let validator = <Kept as schema_core::Document>::validator();
    let required = validator
        .get_document("$jsonSchema")
        .unwrap()
        .get_array("required")
        .unwrap()
        .clone();
    assert_eq!(
        required,
        vec![Bson::from("_id"), Bson::from("opaque"), Bson::from("log")],
        "an Option of an undescribed type may be null"
    );
}

#[tokio::test]
async fn documents_are_stored_through_the_validator() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "unbounded_hatch").await;
    Schema::new().with::<Kept>().sync(&db).await.unwrap();
    let repo = Repo::<Kept>::new(&db);
    let kept = [
        Kept {
            id: "k1".into(),
            opaque: Opaque { a: 1 },
            maybe: Some(Opaque { a: 2 }),
            log: (0..50).map(|i| format!("line {i}")).collect(),
        },
        Kept {
            id: "k2".into(),
            opaque: Opaque { a: 3 },
            maybe: None,
            log: Vec::new(),
        },
    ];
    for k in &kept {
        repo.insert(k).await.unwrap();
        assert_eq!(repo.get(&k.id).await.unwrap().as_ref(), Some(k));
    }
    // The described field is still checked by the server.
    let raw = db.collection::<BsonDocument>("kept");
    let err = raw
        .update_one(doc! { "_id": "k2" }, doc! { "$push": { "log": 7 } })
        .await
        .unwrap_err();
    match *err.kind {
        ErrorKind::Write(WriteFailure::WriteError(w)) => {
            assert_eq!(w.code, code::DOCUMENT_VALIDATION_FAILURE)
        }
        other => panic!("not a validation failure: {other:?}"),
    }
}
