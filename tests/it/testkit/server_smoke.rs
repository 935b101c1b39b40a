//! Smoke test of the test setup: a derived document round-trips through the
//! driver against the real test server, and the server runs transactions.

use crate::support;

use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[document(collection = "notes")]
struct Note {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "bodyText")]
    body: String,
    #[embed(max = 5)]
    tags: Vec<String>,
    score: Option<i32>,
}

#[tokio::test]
async fn derived_document_round_trips_through_the_server() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "smoke").await;
    let notes = db.collection::<Note>(Note::COLLECTION);
    let note = Note {
        id: "n1".into(),
        body: "hello".into(),
        tags: vec!["a".into(), "b".into()],
        score: None,
    };
    notes.insert_one(&note).await.unwrap();

    let found = notes
        .find_one(
            Note::FIELDS
                .id
                .eq(&"n1".to_owned())
                .into_document()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(found.as_ref(), Some(&note));

    // The stored names are the serde names the constants carry.
    let raw = db
        .collection::<bson::Document>(Note::COLLECTION)
        .find_one(bson::doc! { "_id": "n1" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw.get_str(Note::FIELDS.body.name()).unwrap(), "hello");
    assert_eq!(Note::FIELDS.body.name(), "bodyText");
}

#[tokio::test]
async fn the_server_runs_transactions() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "smoke_txn").await;
    let coll = db.collection::<bson::Document>("t");
    let mut session = client.start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    coll.insert_one(bson::doc! { "_id": 1 })
        .session(&mut session)
        .await
        .unwrap();
    session.abort_transaction().await.unwrap();
    assert_eq!(
        coll.count_documents(bson::doc! {}).await.unwrap(),
        0,
        "aborted insert is gone"
    );
}
