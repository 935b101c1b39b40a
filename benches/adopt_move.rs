//! Moving a stuck array out (`MoveOut::run`) against a hand-written loop of
//! the same writes through the raw driver: per batch, in one transaction
//! committed with `{ w: "majority", j: true }` (`helper_options`), an
//! `aggregate` reading the first items and the array's length, an
//! `insert_many` of the children, an `update` removing those items from the
//! array guarded by its length (`$push` of nothing with `$slice`), and the
//! array unset with the last batch, run by the same transaction runner
//! (`transaction(..)`, retried on a transient error as the driver's
//! `withTransaction` does). The framework's side adds the checks:
//! each child decoded as the model before its batch is written, the order
//! checked, the topology asked once.
//!
//! Each round builds two fresh copies of a stuck-like room (`ITEMS` items,
//! default 2,089, of 8,000 bytes: seed 000's room, one push short of
//! 16 MiB), one per side, and moves both in batches of `BATCH` (default
//! 100), the side that goes first alternating. Prints each side's median
//! items per second and the median of the per-round time ratios
//! framework/raw with their p10-p90.
//!
//! Run: `cargo bench --bench adopt_move` (`ROUNDS=N`, default 10;
//! `ITEMS=N`; `BATCH=N`).

use std::time::{Duration, Instant};

use bson::{doc, oid::ObjectId, Document as BsonDocument};
use futures_util::TryStreamExt;
use mongodb::{Client, Database};
use schema_core::{helper_options, transaction, MoveOptions, Schema};
use schema_testkit::models::moved::{Message, MESSAGES};
use schema_testkit::stats::{median, Spread};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A fresh database holding the stuck-like room, the messages' index set up.
async fn stuck(client: &Client, name: &str, items: usize) -> Database {
    let db = client.database(name);
    db.drop().await.expect("drop");
    Schema::new()
        .with::<Message>()
        .sync(&db)
        .await
        .expect("sync");
    let pad = "x".repeat(8000);
    let messages: Vec<BsonDocument> = (0..items as i32)
        .map(|n| doc! { "n": n, "text": &pad })
        .collect();
    db.collection::<BsonDocument>("rooms")
        .insert_one(doc! { "_id": "room1", "messages": messages })
        .await
        .expect("the stuck room");
    db
}

/// The same writes by hand: one transaction per batch, through the same
/// runner (`transaction(..)` with `helper_options()`, retried on a
/// transient error as the driver's `withTransaction` does, and with half
/// the items after a refusal as too large for the storage engine's cache,
/// as the framework's side does); how many items it moved.
async fn raw_move(client: &Client, db: &Database, batch: i32) -> u64 {
    let rooms = db.collection::<BsonDocument>("rooms");
    let children = db.collection::<BsonDocument>("roomMessages");
    let (mut moved, mut batch) = (0, batch);
    loop {
        let taken = transaction(client)
            .options(helper_options())
            .run(async |s| {
                let rows: Vec<BsonDocument> = rooms
                    .aggregate([
                        doc! { "$match": { "_id": "room1" } },
                        doc! { "$project": {
                            "_id": 0,
                            "len": { "$cond": [{ "$isArray": "$messages" }, { "$size": "$messages" }, -1] },
                            "items": { "$cond": [{ "$isArray": "$messages" }, { "$slice": ["$messages", batch] }, []] },
                        } },
                    ])
                    .session(&mut *s)
                    .await?
                    .stream(&mut *s)
                    .try_collect()
                    .await?;
                let len = rows[0].get_i32("len").expect("len");
                if len < 0 {
                    return Ok(None);
                }
                let items: Vec<BsonDocument> = rows[0]
                    .get_array("items")
                    .expect("items")
                    .iter()
                    .map(|item| {
                        let mut child = doc! { "_id": ObjectId::new(), "room": "room1" };
                        child.extend(item.as_document().expect("a document").clone());
                        child
                    })
                    .collect();
                let taken = items.len() as i32;
                if !items.is_empty() {
                    children.insert_many(items).session(&mut *s).await?;
                }
                let update = if taken >= len {
                    doc! { "$unset": { "messages": "" } }
                } else {
                    doc! { "$push": { "messages": { "$each": [], "$slice": -i64::from(len - taken) } } }
                };
                let r = rooms
                    .update_one(doc! { "_id": "room1", "messages": { "$size": len } }, update)
                    .session(&mut *s)
                    .await?;
                assert_eq!(r.matched_count, 1);
                Ok(Some(taken as u64))
            })
            .await;
        match taken {
            Ok(Some(taken)) => moved += taken,
            Ok(None) => return moved,
            // Too large for the storage engine's cache: half the items, as
            // the framework's side does.
            Err(e) if e.code() == Some(388) => {
                batch = (batch / 2).max(1);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("a batch: {e}"),
        }
    }
}

#[tokio::main]
async fn main() {
    let rounds = env("ROUNDS", 10).max(1);
    let items = env("ITEMS", 2089).max(1);
    let batch = env("BATCH", 100).max(1);
    let client = schema_testkit::server::connect()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let options = MoveOptions {
        batch_size: batch as u32,
        ..MoveOptions::default()
    };
    let (mut framework, mut raw) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let framework_db = stuck(&client, "bench_adopt_move_framework", items).await;
        let raw_db = stuck(&client, "bench_adopt_move_raw", items).await;
        for side in 0..2 {
            if (side + round) % 2 == 0 {
                let started = Instant::now();
                let done = MESSAGES
                    .run(&framework_db, options, |_| {})
                    .await
                    .expect("the move");
                framework.push(started.elapsed());
                assert_eq!(done.moved, items as u64);
            } else {
                let started = Instant::now();
                let moved = raw_move(&client, &raw_db, batch as i32).await;
                raw.push(started.elapsed());
                assert_eq!(moved, items as u64);
            }
        }
    }
    let per_second = |t: Duration| items as f64 / t.as_secs_f64();
    let ratio = Spread::of_ratios(&framework, &raw);
    println!(
        "move of {items} items of 8,000 bytes in batches of {batch}, {rounds} rounds: \
         MoveOut::run {:.0} items/s (median {:.0} ms), raw loop {:.0} items/s (median {:.0} ms); \
         time ratio framework/raw {ratio}",
        per_second(median(&framework)),
        median(&framework).as_secs_f64() * 1000.0,
        per_second(median(&raw)),
        median(&raw).as_secs_f64() * 1000.0,
    );
}
