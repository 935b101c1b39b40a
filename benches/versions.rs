//! Versioned models (the model of `tests/models/people.rs`): what reading a document stored at an earlier version
//! costs against one at the current version, and how fast `Repo::migrate`
//! upgrades a collection at its default batch size.
//!
//! - Reads: 500 documents at the current version (3) and 500 at version 1
//!   (two upgrade steps on read), `get` by `_id`, `BATCH` of each per round,
//!   `ROUNDS` rounds interleaved (the side that goes first alternates).
//!   Prints the median microseconds per `get` of each side and the median
//!   of the per-round ratios earlier/current with their p10-p90.
//! - Migration: `MIGRATE_DOCS` documents (default 20,000) at version 1,
//!   upgraded by `migrate(MigrateOptions::default(), ..)` (batches of 500);
//!   prints the documents per second, and the same number of documents
//!   inserted with `insert_many` for scale.
//!
//! Run: `cargo bench --bench versions` (`ROUNDS=N`, default 200; `BATCH=N`,
//! default 5; `MIGRATE_DOCS=N`).

use std::time::{Duration, Instant};

#[path = "../tests/models/people.rs"]
mod people;

use bson::{doc, Document as BsonDocument};
use people::Person;
use schema_core::prelude::*;
use schema_core::Schema;
use schema_core::{MigrateOptions, VERSION_FIELD};
use schema_testkit::stats::Spread;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn v1(i: usize) -> BsonDocument {
    doc! { "_id": format!("old{i:06}"), "name": format!("First{i} Last{i}") }
}

/// The bench's database emptied, with the model's collection set up.
async fn fresh(db: &mongodb::Database) {
    db.drop().await.expect("drop");
    Schema::new().with::<Person>().sync(db).await.expect("sync");
}

#[tokio::main]
async fn main() {
    let rounds = env("ROUNDS", 200).max(1);
    let batch = env("BATCH", 5).max(1);
    let migrate_docs = env("MIGRATE_DOCS", 20_000).max(1);
    let (client, _) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database("bench_versions");
    fresh(&db).await;
    let raw = db.collection::<BsonDocument>("people");
    let people = Repo::<Person>::new(&db);
    let n = 500;
    raw.insert_many((0..n).map(v1)).await.expect("insert v1");
    let current: Vec<Person> = (0..n)
        .map(|i| Person {
            id: format!("new{i:06}"),
            first: format!("First{i}"),
            last: format!("Last{i}"),
            email: format!("first{i}.last{i}@example.org"),
        })
        .collect();
    people.insert_many(&current).await.expect("insert v3");

    let mut old_times = Vec::new();
    let mut new_times = Vec::new();
    let mut ratios = Vec::new();
    for round in 0..rounds {
        let ids: Vec<usize> = (0..batch).map(|k| (round * batch + k) % n).collect();
        let run = |prefix: &'static str| {
            let (people, ids) = (&people, &ids);
            async move {
                let start = Instant::now();
                for i in ids {
                    let got = people.get(&format!("{prefix}{i:06}")).await.expect("get");
                    assert!(got.is_some_and(|p| !p.email.is_empty()));
                }
                start.elapsed()
            }
        };
        let (old, new) = if round % 2 == 0 {
            let old = run("old").await;
            (old, run("new").await)
        } else {
            let new = run("new").await;
            (run("old").await, new)
        };
        ratios.push(old.as_secs_f64() / new.as_secs_f64());
        old_times.push(old);
        new_times.push(new);
    }
    let per = |mut times: Vec<Duration>| {
        times.sort();
        times[times.len() / 2].as_secs_f64() * 1e6 / batch as f64
    };
    let spread = Spread::of(ratios);
    println!("reads: {rounds} rounds of {batch} `get` by _id each side, interleaved; medians");
    println!(
        "get at version 1 (two upgrade steps) {:>8.1} us; at version 3 {:>8.1} us; ratio {:.3} (p10-p90 {:.3}-{:.3})",
        per(old_times),
        per(new_times),
        spread.median,
        spread.p10,
        spread.p90
    );

    // Migration throughput.
    fresh(&db).await;
    let docs: Vec<BsonDocument> = (0..migrate_docs).map(v1).collect();
    let start = Instant::now();
    for chunk in docs.chunks(1000) {
        raw.insert_many(chunk.to_vec()).await.expect("insert");
    }
    let inserted = start.elapsed();
    let start = Instant::now();
    let done = people
        .migrate(MigrateOptions::default(), |_| {})
        .await
        .expect("migrate");
    let migrated = start.elapsed();
    assert_eq!(done.upgraded, migrate_docs as u64);
    let left = raw
        .count_documents(doc! { VERSION_FIELD: { "$ne": 3 } })
        .await
        .expect("count");
    assert_eq!(left, 0);
    println!(
        "migrate {migrate_docs} documents from version 1 (batches of 500): {:.2} s, {:.0} documents/s; inserting them (insert_many of 1,000): {:.2} s, {:.0} documents/s",
        migrated.as_secs_f64(),
        migrate_docs as f64 / migrated.as_secs_f64(),
        inserted.as_secs_f64(),
        migrate_docs as f64 / inserted.as_secs_f64(),
    );
    db.drop().await.expect("drop");
}
