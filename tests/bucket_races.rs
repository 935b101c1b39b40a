//! The bucket pattern before setup, against the real server: racing
//! pushers and a trim are refused with `Error::MissingIndex` until the
//! unique `(parent, seq)` index exists, and nothing is written.

mod support;

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use schema_core::growth::Buckets;
use schema_core::prelude::*;
use schema_core::Error;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Line {
    n: i64,
}

/// Buckets of 7 lines of one room.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(
    collection = "line_buckets",
    bucket(parent = room_id, items = lines, count = count, seq = seq)
)]
struct LineBucket {
    #[serde(rename = "_id")]
    id: ObjectId,
    room_id: String,
    seq: i64,
    count: i32,
    #[embed(max = 7)]
    lines: Vec<Line>,
}

fn line(n: i64) -> Line {
    Line { n }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn before_setup_pushes_and_trims_are_refused_and_write_nothing() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "bucket_before_setup").await;
    let room = "r".to_owned();
    let missing = |e: &Error| {
        matches!(
            e,
            Error::MissingIndex { collection: "line_buckets", index } if index == "roomId_1_seq_-1"
        )
    };
    // 16 racing pushers, each a handle of its own.
    let mut tasks = Vec::new();
    for p in 0..16 {
        let mine = Buckets::<LineBucket>::new(&db);
        let room = room.clone();
        tasks.push(tokio::spawn(async move {
            let mut errors = Vec::new();
            for i in 0..14 {
                errors.push(mine.push(&room, &line(p * 1000 + i)).await.unwrap_err());
            }
            errors
        }));
    }
    for task in tasks {
        for e in task.await.unwrap() {
            assert!(missing(&e), "{e:?}");
            assert!(e.to_string().contains("line_buckets"), "{e}");
            assert!(e.to_string().contains("roomId_1_seq_-1"), "{e}");
        }
    }
    let buckets = Buckets::<LineBucket>::new(&db);
    let e = buckets.trim(&room, 1).await.unwrap_err();
    assert!(missing(&e), "{e:?}");
    let names = db.list_collection_names().await.unwrap();
    assert!(
        !names.iter().any(|n| n == "line_buckets"),
        "nothing written: {names:?}"
    );

    // An index on (parent, seq) that is not unique does not keep racing
    // openers apart either.
    let coll = db.collection::<BsonDocument>("line_buckets");
    coll.create_index(
        mongodb::IndexModel::builder()
            .keys(doc! { "roomId": 1, "seq": -1 })
            .build(),
    )
    .await
    .unwrap();
    let e = buckets.push(&room, &line(1)).await.unwrap_err();
    assert!(missing(&e), "{e:?}");
    assert_eq!(coll.count_documents(doc! {}).await.unwrap(), 0);
}
