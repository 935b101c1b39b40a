//! Change streams: events per second through the typed stream
//! (`Repo::watch`, each event decoded as the model) against the driver's
//! raw `watch()` of the same changes (`ChangeStreamEvent<M>`, the driver's
//! own decoding), and a named consumer's throughput exactly once (the
//! handler's `$inc` and the position in one transaction, committed with
//! `{ w: "majority", j: true }`) against at least once (the same `$inc`
//! with no session, then the position saved).
//!
//! Each stream round inserts `EVENTS` new documents, then both sides read
//! them from the same resume token (the side that goes first alternates).
//! Each consumer round inserts `CHANGES` new documents, then each consumer
//! (resuming from its saved position) runs until it handled them all.
//! Prints events per second of each side (median round) and the median of
//! the per-round time ratios with their p10-p90 spread.
//!
//! Run: `cargo bench --bench watch` (`ROUNDS=N`, default 10; `EVENTS=N`,
//! default 5000; `CHANGES=N`, default 1000).

use std::time::{Duration, Instant};

use bson::{doc, Document as BsonDocument};
use futures_util::TryStreamExt;
use mongodb::change_stream::event::ResumeToken;
use mongodb::{Collection, Database};
use schema_core::prelude::*;
use schema_core::{Change, Consumer, CONSUMERS};
use schema_testkit::stats::{median, Spread};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "orders")]
struct Order {
    #[serde(rename = "_id")]
    id: i64,
    status: String,
    customer: String,
    total: f64,
    note: String,
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Inserts `n` new orders from `*next` on.
async fn insert(raw: &Collection<Order>, next: &mut i64, n: usize) {
    let orders: Vec<Order> = (0..n as i64)
        .map(|i| Order {
            id: *next + i,
            status: "new".into(),
            customer: format!("c{}", (*next + i) % 100),
            total: (*next + i) as f64 / 7.0,
            note: "n".repeat(100),
        })
        .collect();
    *next += n as i64;
    for chunk in orders.chunks(1_000) {
        raw.insert_many(chunk).await.expect("insert");
    }
}

async fn typed_side(repo: &Repo<Order>, from: &ResumeToken, n: usize) -> Duration {
    let start = Instant::now();
    let mut s = repo
        .watch()
        .resume_after(from.clone())
        .await
        .expect("watch");
    let mut seen = 0usize;
    while seen < n {
        let event = s.try_next().await.expect("next").expect("an event");
        if let Change::Insert(o) = event.change {
            seen += usize::from(o.id >= 0);
        }
    }
    start.elapsed()
}

async fn raw_side(raw: &Collection<Order>, from: &ResumeToken, n: usize) -> Duration {
    let start = Instant::now();
    let mut s = raw.watch().resume_after(from.clone()).await.expect("watch");
    let mut seen = 0usize;
    while seen < n {
        let event = s.try_next().await.expect("next").expect("an event");
        if let Some(o) = event.full_document {
            seen += usize::from(o.id >= 0);
        }
    }
    start.elapsed()
}

/// Runs consumer `name` until it handled `n` changes: exactly once (its
/// `$inc` in the position's transaction) or at least once (its `$inc`
/// alone, then the position).
async fn consume(repo: &Repo<Order>, name: &str, exactly_once: bool, n: usize) -> Duration {
    let counts = repo.database().collection::<BsonDocument>("counts");
    let consumer = Consumer::new(name, repo);
    let stop = consumer.stopper();
    let mut seen = 0usize;
    let start = Instant::now();
    let context = (&counts, name, &mut seen, &stop, n);
    let ran = if exactly_once {
        consumer
            .run(context, |s, (counts, name, seen, stop, n), _| {
                Box::pin(async move {
                    counts
                        .update_one(doc! { "_id": *name }, doc! { "$inc": { "n": 1 } })
                        .upsert(true)
                        .session(&mut *s)
                        .await?;
                    **seen += 1;
                    if **seen == *n {
                        stop.stop();
                    }
                    Ok(())
                })
            })
            .await
    } else {
        consumer
            .run_at_least_once(context, |(counts, name, seen, stop, n), _| {
                Box::pin(async move {
                    counts
                        .update_one(doc! { "_id": *name }, doc! { "$inc": { "n": 1 } })
                        .upsert(true)
                        .await?;
                    **seen += 1;
                    if **seen == *n {
                        stop.stop();
                    }
                    Ok(())
                })
            })
            .await
    };
    let took = start.elapsed();
    assert_eq!(ran.expect("the consumer's run").handled, n as u64);
    took
}

/// Starts consumer `name` once, so that it saves where it starts.
async fn start_consumer(db: &Database, repo: &Repo<Order>, name: &str) {
    let consumer = Consumer::new(name, repo);
    let stop = consumer.stopper();
    let positions = db.collection::<BsonDocument>(CONSUMERS);
    let (ran, ()) = tokio::join!(
        consumer.run_at_least_once((), |_, _| Box::pin(async { Ok(()) })),
        async {
            loop {
                let p = positions
                    .find_one(doc! { "_id": name })
                    .await
                    .expect("find");
                if p.is_some_and(|p| p.get_document("token").is_ok()) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            stop.stop();
        }
    );
    ran.expect("the consumer's start");
}

#[tokio::main]
async fn main() {
    let rounds = env("ROUNDS", 10).max(1);
    let events = env("EVENTS", 5_000).max(1);
    let changes = env("CHANGES", 1_000).max(1);
    let (client, _log) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database("bench_watch");
    db.drop().await.expect("drop");
    let repo = Repo::<Order>::new(&db);
    let raw: Collection<Order> = db.collection("orders");
    let mut next = 0i64;

    // The typed stream against the raw driver's, the same changes.
    let round_of = async |next: &mut i64| {
        let from = raw.watch().await.expect("watch");
        let from = from.resume_token().expect("a starting token");
        insert(&raw, next, events).await;
        from
    };
    let from = round_of(&mut next).await;
    typed_side(&repo, &from, events).await;
    raw_side(&raw, &from, events).await;
    let (mut typed, mut raws) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let from = round_of(&mut next).await;
        if round % 2 == 0 {
            typed.push(typed_side(&repo, &from, events).await);
            raws.push(raw_side(&raw, &from, events).await);
        } else {
            raws.push(raw_side(&raw, &from, events).await);
            typed.push(typed_side(&repo, &from, events).await);
        }
    }
    let per_sec = |n: usize, d: Duration| n as f64 / d.as_secs_f64();
    println!(
        "change streams: {events} inserts read per side per round, {rounds} interleaved rounds"
    );
    println!(
        "typed stream {:>9.0} events/s   raw watch() {:>9.0} events/s   time ratio typed/raw {}",
        per_sec(events, median(&typed)),
        per_sec(events, median(&raws)),
        Spread::of_ratios(&typed, &raws)
    );

    // The consumer, exactly once against at least once.
    start_consumer(&db, &repo, "exactly").await;
    start_consumer(&db, &repo, "at_least").await;
    insert(&raw, &mut next, changes).await;
    consume(&repo, "exactly", true, changes).await;
    consume(&repo, "at_least", false, changes).await;
    let (mut once, mut least) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        insert(&raw, &mut next, changes).await;
        if round % 2 == 0 {
            once.push(consume(&repo, "exactly", true, changes).await);
            least.push(consume(&repo, "at_least", false, changes).await);
        } else {
            least.push(consume(&repo, "at_least", false, changes).await);
            once.push(consume(&repo, "exactly", true, changes).await);
        }
    }
    println!(
        "consumers: {changes} changes handled per side per round, {rounds} interleaved rounds"
    );
    println!(
        "exactly once {:>8.0} changes/s   at least once {:>8.0} changes/s   time ratio once/least {}",
        per_sec(changes, median(&once)),
        per_sec(changes, median(&least)),
        Spread::of_ratios(&once, &least)
    );
}
