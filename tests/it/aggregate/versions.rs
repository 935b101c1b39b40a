//! A pipeline on a model that names earlier shapes reads documents as
//! stored, so it is sent only once none of an earlier version is stored:
//! refused (one query on the version index, no `aggregate`) while one is,
//! and run, `project` included, after `Repo::migrate`.

use crate::support;

use bson::{doc, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::{Error, MigrateOptions, Schema};
use serde::{Deserialize, Serialize};

/// Version 1, as the old application stored it.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "tickets")]
struct TicketV1 {
    #[serde(rename = "_id")]
    id: String,
    queue: String,
    minutes: i32,
}

/// Version 2: `minutes` became `seconds`.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "tickets", migrate_from(TicketV1), index(keys(queue = asc)))]
struct Ticket {
    #[serde(rename = "_id")]
    id: String,
    queue: String,
    seconds: i64,
}

impl schema_core::Upgrade<TicketV1> for Ticket {
    fn upgrade(old: TicketV1) -> Result<Self, String> {
        Ok(Ticket {
            id: old.id,
            queue: old.queue,
            seconds: i64::from(old.minutes) * 60,
        })
    }
}

#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = Ticket)]
struct PerQueue {
    #[group(key = queue)]
    queue: String,
    #[group(sum = seconds)]
    seconds: i64,
    #[group(count)]
    tickets: i64,
}

#[derive(Projection, Deserialize, Debug, PartialEq)]
#[projection(of = Ticket)]
struct Queued {
    queue: String,
    seconds: i64,
}

#[tokio::test]
async fn a_pipeline_waits_for_the_migration_and_then_counts_every_document() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "agg_versions").await;
    Schema::new().with::<Ticket>().sync(&db).await.unwrap();
    let raw = db.collection::<BsonDocument>("tickets");
    for i in 0..30 {
        // Version 1, as the old application wrote it (no version field).
        raw.insert_one(doc! { "_id": format!("old{i}"), "queue": "billing", "minutes": 2 })
            .await
            .unwrap();
    }
    let repo = Repo::<Ticket>::new(&db);
    for i in 0..10 {
        let t = Ticket {
            id: format!("new{i}"),
            queue: "billing".into(),
            seconds: 30,
        };
        repo.insert(&t).await.unwrap();
    }
    let billing = "billing".to_owned();
    let per_queue = || {
        repo.aggregate()
            .filter(Ticket::FIELDS.queue.eq(&billing))
            .group::<PerQueue>()
    };

    // Summing `seconds` over stored documents would miss the 30 old ones.
    log.clear();
    let err = per_queue().all().await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::AggregateRefused { .. }), "{msg}");
    assert!(
        msg.contains("documents of `Ticket` at version 1 are stored (the current one is 2)"),
        "{msg}"
    );
    assert!(msg.contains("finish the migration"), "{msg}");
    let err = repo
        .aggregate()
        .filter(Ticket::FIELDS.queue.eq(&billing))
        .project::<Queued>()
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::AggregateRefused { .. }), "{err}");
    assert_eq!(
        log.operations(),
        vec!["find".to_owned(), "find".to_owned()],
        "no aggregate sent"
    );

    repo.migrate(MigrateOptions::default(), |_| {})
        .await
        .unwrap();
    let rows = per_queue().all().await.unwrap();
    assert_eq!(
        rows,
        vec![PerQueue {
            queue: "billing".into(),
            seconds: 30 * 120 + 10 * 30,
            tickets: 40
        }]
    );
    let views = repo
        .aggregate()
        .filter(Ticket::FIELDS.queue.eq(&billing))
        .project::<Queued>()
        .all()
        .await
        .unwrap();
    assert_eq!(views.len(), 40);
    assert_eq!(
        views.iter().map(|v| v.seconds).sum::<i64>(),
        30 * 120 + 10 * 30
    );
}
