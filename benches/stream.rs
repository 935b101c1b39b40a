//! Streaming throughput: `Repo::find(..).await` read as a `DocStream` against
//! the raw driver's typed cursor over the same query, interleaved per round
//! in one run (the side that goes first alternates). Each round reads every
//! document of the collection sorted by `_id` (served by the `_id` index)
//! on each side, in batches of `DEFAULT_BATCH_SIZE` (the stream's default,
//! given to the raw cursor too, so both send the same commands). Prints the documents per second of each side and the
//! median of the per-round ratios stream/raw (time) with its p10-p90 spread.
//!
//! Run: `cargo bench --bench stream` (`ROUNDS=N`, default 20; `DOCS=N`,
//! default 20000).

use std::time::{Duration, Instant};

use bson::doc;
use futures_util::TryStreamExt;
use mongodb::Collection;
use schema_core::prelude::*;
use schema_core::Schema;
use schema_testkit::stats::{median, Spread};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "readings")]
struct Reading {
    #[serde(rename = "_id")]
    id: i64,
    sensor: String,
    value: f64,
    payload: String,
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() {
    let rounds = env("ROUNDS", 20).max(1);
    let docs = env("DOCS", 20_000).max(1);
    let (client, _log) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database("bench_stream");
    db.drop().await.expect("drop");
    Schema::new()
        .with::<Reading>()
        .sync(&db)
        .await
        .expect("sync");
    let repo = Repo::<Reading>::new(&db);
    let raw: Collection<Reading> = db.collection("readings");
    let all: Vec<Reading> = (0..docs)
        .map(|i| Reading {
            id: i as i64,
            sensor: format!("s{}", i % 100),
            value: i as f64 / 3.0,
            payload: "p".repeat(100),
        })
        .collect();
    for chunk in all.chunks(5_000) {
        repo.insert_many(chunk).await.expect("seed");
    }

    let stream_side = || async {
        let start = Instant::now();
        let mut s = repo
            .find(doc! {})
            .sort(doc! { "_id": 1 })
            .await
            .expect("find");
        let mut n = 0usize;
        while let Some(r) = s.try_next().await.expect("next") {
            n += usize::from(r.id >= 0);
        }
        assert_eq!(n, docs);
        start.elapsed()
    };
    let raw_side = || async {
        let start = Instant::now();
        let mut c = raw
            .find(doc! {})
            .sort(doc! { "_id": 1 })
            .batch_size(schema_core::DEFAULT_BATCH_SIZE)
            .await
            .expect("find");
        let mut n = 0usize;
        while let Some(r) = c.try_next().await.expect("next") {
            n += usize::from(r.id >= 0);
        }
        assert_eq!(n, docs);
        start.elapsed()
    };
    // One warm-up round of each, not counted.
    stream_side().await;
    raw_side().await;
    let (mut streamed, mut raws): (Vec<Duration>, Vec<Duration>) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        if round % 2 == 0 {
            streamed.push(stream_side().await);
            raws.push(raw_side().await);
        } else {
            raws.push(raw_side().await);
            streamed.push(stream_side().await);
        }
    }
    let per_sec = |d: Duration| docs as f64 / d.as_secs_f64();
    println!("streaming {docs} documents sorted by _id, {rounds} interleaved rounds");
    println!(
        "DocStream {:>10.0} docs/s   raw cursor {:>10.0} docs/s   time ratio stream/raw {}",
        per_sec(median(&streamed)),
        per_sec(median(&raws)),
        Spread::of_ratios(&streamed, &raws)
    );
}
