//! A push whose items alone would take the document past 16 MiB is refused
//! with `Error::TooLarge` before anything is sent, by the same check as an
//! insert: one item over the limit, items adding up to more, into a list, a
//! set or the subset pattern. The document is unchanged.

use crate::support;

use std::collections::BTreeSet;

use bson::{doc, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::MAX_DOCUMENT_SIZE;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "notes")]
struct Note {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 10)]
    parts: Vec<String>,
    #[embed(max = 10)]
    labels: BTreeSet<String>,
    #[embed(max = 3, keep = "newest", history = Revision)]
    recent: Vec<String>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "revisions")]
struct Revision {
    #[serde(rename = "_id")]
    id: String,
    text: String,
}

fn note() -> Note {
    Note {
        id: "n1".into(),
        parts: vec!["first".into()],
        labels: BTreeSet::new(),
        recent: Vec::new(),
    }
}

#[tokio::test]
async fn an_item_over_16_mib_is_refused_before_sending_and_the_document_is_unchanged() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "push_size").await;
    Schema::new()
        .with::<Note>()
        .with::<Revision>()
        .sync(&db)
        .await
        .unwrap();
    let notes = Repo::<Note>::new(&db);
    notes.insert(&note()).await.unwrap();
    let id = "n1".to_owned();
    let parts = notes.embed(Note::FIELDS.parts);
    let huge = "x".repeat(MAX_DOCUMENT_SIZE);

    log.clear();
    let err = parts.push(&id, &huge).await.unwrap_err();
    match &err {
        Error::TooLarge {
            collection,
            id,
            size,
            limit,
            field,
            field_size,
        } => {
            assert_eq!(
                (*collection, id.as_str(), field.as_str()),
                ("notes", "n1", "parts")
            );
            assert_eq!(*limit, MAX_DOCUMENT_SIZE);
            // {_id: "n1", parts: [huge]}: the least the document would be.
            let item = 1 + 2 + 4 + MAX_DOCUMENT_SIZE + 1; // type, "0\0", length, bytes, NUL
            assert_eq!(*field_size, 1 + 6 + 4 + item + 1); // type, "parts\0", array
            assert_eq!(*size, 4 + (1 + 4 + 4 + 3) + field_size + 1);
        }
        other => panic!("{other:?}"),
    }
    let message = err.to_string();
    for part in ["`notes`", "`n1`", "`parts`", "16 MiB", "nothing was sent"] {
        assert!(message.contains(part), "{part:?} in {message}");
    }
    println!("{message}");

    // Items that add up to more than 16 MiB, each far under it.
    let third = "y".repeat(6 << 20);
    let err = parts
        .push_many(&id, &[third.clone(), third.clone(), third.clone()])
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::TooLarge { field, .. } if field == "parts"),
        "{err:?}"
    );

    // A set and the subset pattern go through the same check.
    let err = notes
        .embed(Note::FIELDS.labels)
        .push(&id, &huge)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::TooLarge { field, .. } if field == "labels"),
        "{err:?}"
    );
    let revision = Revision {
        id: "r1".into(),
        text: "small".into(),
    };
    let err = notes
        .embed(Note::FIELDS.recent)
        .push_keeping(&id, &huge, &revision)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::TooLarge { field, .. } if field == "recent"),
        "{err:?}"
    );
    // The history record over the limit is refused before the transaction too.
    let big_revision = Revision {
        id: "r2".into(),
        text: huge.clone(),
    };
    let err = notes
        .embed(Note::FIELDS.recent)
        .push_keeping(&id, &"small".to_owned(), &big_revision)
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::TooLarge {
                collection: "revisions",
                ..
            }
        ),
        "{err:?}"
    );

    assert_eq!(log.operations(), Vec::<String>::new(), "nothing sent");
    assert_eq!(notes.get(&id).await.unwrap().unwrap(), note(), "unchanged");
    assert_eq!(
        db.collection::<BsonDocument>("revisions")
            .count_documents(doc! {})
            .await
            .unwrap(),
        0
    );

    // Large items that fit are still pushed.
    parts.push(&id, &"z".repeat(4 << 20)).await.unwrap();
    assert_eq!(notes.get(&id).await.unwrap().unwrap().parts.len(), 2);
}
