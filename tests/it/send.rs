//! Every public async operation of `schema-core` gives a `Send` future
//! when its inputs are `Send`, so that a service can `tokio::spawn` it on
//! a multi-threaded runtime: asserted at compile time, for every model (the
//! functions are generic over it), and once at run time by spawning a
//! consumer that borrows what it writes to through its context. The web
//! service example (`examples/service.rs`, run by its own test) spawns a
//! consumer and serves `Repo` reads and writes over HTTP.

use std::future::IntoFuture;
use std::time::Duration;

use bson::{doc, Document as BsonDocument};
use mongodb::Database;
use schema_core::prelude::*;
use schema_core::{
    audit, audit_with, pull, transaction, Action, AuditOptions, Change, Consumer, CopyFollower,
    Event, MigrateOptions, MoveOptions, MoveOut, PullOptions, RepairOptions, Schema, SyncOptions,
};

use super::watch::{order, Order};
use crate::support;

fn is_send<T: Send>(_: &T) {}

/// Every helper returns an [`Action`]: it and its future are `Send` for
/// every result and options type that is.
#[allow(dead_code)]
fn actions<'a, T: Send + 'a, O: Send + 'a>(action: Action<'a, T, O>) {
    is_send(&action);
    is_send(&action.into_future());
}

/// The builders awaited directly: `find`, `find_one`, `count`, `watch`,
/// `page`, the cascading `delete`.
#[allow(dead_code)]
fn builders<M: Document>(repo: &Repo<M>, schema: &Schema, db: &Database, id: &M::Id) {
    let filter = || Filter::<M>::from(doc! {});
    is_send(&repo.find(filter()).into_future());
    is_send(&repo.find(filter()).all());
    is_send(&repo.find(filter()).explain());
    is_send(&repo.find_one(filter()).into_future());
    is_send(&repo.count(filter()).into_future());
    is_send(&repo.watch().into_future());
    is_send(&schema.delete::<M>(db, id).into_future());
}

/// The long-running operations: a consumer (exactly once and at least
/// once, each with a handler that borrows through its context), a copy
/// follower, the move, the audit, pull, setup, migrations, verify and
/// repair, a transaction with a context.
#[allow(dead_code)]
fn operations<M: Document, H: Document, S: Document, P: Document, C: Document>(
    repo: &Repo<M>,
    db: &Database,
    schema: &Schema,
    move_out: MoveOut<P, C>,
) {
    let counts = db.collection::<BsonDocument>("counts");
    let consumer = Consumer::new("send", repo);
    is_send(&consumer.run(&counts, |session, counts, _event| {
        Box::pin(async move {
            counts
                .update_one(doc! {}, doc! { "$inc": { "n": 1 } })
                .session(session)
                .await?;
            Ok(())
        })
    }));
    let mut seen = Vec::new();
    is_send(
        &consumer.run_at_least_once(&mut seen, |seen, event: &Event<M>| {
            Box::pin(async move {
                seen.push(event.token.clone());
                Ok(())
            })
        }),
    );
    let follower = CopyFollower::<H, S>::new("send-follower", db);
    is_send(&follower.run());
    is_send(&follower.run_observed(|_| {}));
    is_send(&move_out.run(db, MoveOptions::default(), |_| {}));
    is_send(&audit(db, &AuditOptions::default()));
    is_send(&audit_with(db, schema, &AuditOptions::default(), |_| {}));
    is_send(&pull(db, &PullOptions::default()));
    is_send(&schema.plan(db));
    is_send(&schema.sync(db));
    is_send(&schema.sync_with(db, SyncOptions::default()));
    is_send(&schema.migrate(db, MigrateOptions::default(), |_, _| {}));
    is_send(&schema.verify(db));
    is_send(&schema.repair(db, RepairOptions::default()));
    is_send(&repo.migrate(MigrateOptions::default(), |_| {}));
    // `run` with an `async` closure is `Send` when the closure owns what it
    // uses; one that borrows needs `run_with` and a context (an async
    // closure's future cannot be required to be `Send` for every borrow).
    let owned = counts.clone();
    is_send(&transaction(db.client()).run(async move |session| {
        owned.insert_one(doc! {}).session(session).await?;
        Ok(())
    }));
    is_send(
        &transaction(db.client()).run_with(&counts, |session, counts| {
            Box::pin(async move {
                counts.insert_one(doc! {}).session(session).await?;
                Ok(())
            })
        }),
    );
}

/// A consumer spawned on the multi-threaded runtime, its handler borrowing
/// (through an `Arc`'d context) what it writes to, stopped cleanly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consumer_runs_in_a_spawned_task_and_stops_cleanly() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "send_spawned").await;
    let orders = Repo::<Order>::new(&db);
    let consumer = std::sync::Arc::new(Consumer::new("spawned", &orders));
    let stop = consumer.stopper();
    let counts = db.collection::<BsonDocument>("counts");
    let task = tokio::spawn({
        let (consumer, counts) = (consumer.clone(), counts.clone());
        async move {
            consumer
                .run(&counts, |session, counts, event| {
                    Box::pin(async move {
                        if let Change::Insert(_) = &event.change {
                            counts
                                .update_one(doc! { "_id": "n" }, doc! { "$inc": { "n": 1 } })
                                .upsert(true)
                                .session(session)
                                .await?;
                        }
                        Ok(())
                    })
                })
                .await
        }
    });
    let positions = db.collection::<BsonDocument>(schema_core::CONSUMERS);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while positions
        .find_one(doc! { "_id": "spawned", "token": { "$type": "object" } })
        .await
        .unwrap()
        .is_none()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the consumer's start"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for i in 0..3 {
        orders
            .insert(&order(&format!("s{i}"), "new", 1))
            .await
            .unwrap();
    }
    loop {
        let n = counts
            .find_one(doc! { "_id": "n" })
            .await
            .unwrap()
            .and_then(|d| d.get_i32("n").ok());
        if n == Some(3) {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "3 handled: {n:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.stop();
    let ran = task.await.unwrap().unwrap();
    assert_eq!(ran.handled, 3, "{ran:?}");
}
