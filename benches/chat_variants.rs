//! Seed 000's chat room three ways, side by side in one run: one document
//! per message (`#[reference(index)]` to the room), buckets of 100 messages
//! (`#[document(bucket(...))]`), and a time-series collection
//! (`#[document(timeseries(...))]`). For each it appends `APPENDS` messages
//! of `TEXT` bytes to one room, one at a time (median and p90 latency), reads
//! the newest 50 `READS` times (median latency) and explains that read
//! (keys and documents examined), and prints the collection's storage from
//! `collStats` (`size`, `storageSize`, `totalIndexSize`).
//!
//! Run: `cargo bench --bench chat_variants` (`APPENDS=N`, default 2000;
//! `READS=N`, default 200; `TEXT=N` bytes, default 200).

use std::time::{Duration, Instant};

use bson::oid::ObjectId;
use bson::{doc, DateTime};
use mongodb::Database;
use schema_core::prelude::*;
use schema_core::Buckets;
use schema_core::{PlanSummary, Schema};
use schema_testkit::stats::median;
use serde::{Deserialize, Serialize};

/// One document per message, pointing at its room.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "messages")]
struct Message {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[reference(index, sort(at = desc))]
    room_id: String,
    at: DateTime,
    text: String,
}

/// A message inside a bucket.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone)]
struct Line {
    at: DateTime,
    text: String,
}

/// Up to 100 messages of one room.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(
    collection = "message_buckets",
    bucket(parent = room_id, items = lines, count = count, seq = seq)
)]
struct MessageBucket {
    #[serde(rename = "_id")]
    id: ObjectId,
    room_id: String,
    seq: i64,
    count: i32,
    #[embed(max = 100)]
    lines: Vec<Line>,
}

/// One measurement per message, the room as the series.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(
    collection = "message_series",
    timeseries(time = at, meta = room_id, granularity = "seconds")
)]
struct SeriesMessage {
    #[serde(rename = "_id")]
    id: ObjectId,
    room_id: String,
    at: DateTime,
    text: String,
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The p-th percentile (nearest rank) of `times`.
fn percentile(times: &[Duration], p: f64) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// What `collStats` says of the collection's storage, in bytes.
async fn storage(db: &Database, name: &str) -> (i64, i64, i64) {
    let stats = db
        .run_command(doc! { "collStats": name })
        .await
        .expect("collStats");
    let n = |key: &str| match stats.get(key) {
        Some(bson::Bson::Int32(v)) => i64::from(*v),
        Some(bson::Bson::Int64(v)) => *v,
        Some(bson::Bson::Double(v)) => *v as i64,
        _ => -1,
    };
    (n("size"), n("storageSize"), n("totalIndexSize"))
}

struct Row {
    name: &'static str,
    appends: Vec<Duration>,
    reads: Vec<Duration>,
    plan: PlanSummary,
    storage: (i64, i64, i64),
    documents: u64,
}

async fn time_each<F, Fut>(n: usize, mut op: F) -> Vec<Duration>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let start = Instant::now();
        op(i).await;
        out.push(start.elapsed());
    }
    out
}

#[tokio::main]
async fn main() {
    let appends = env("APPENDS", 2000).max(1);
    let reads = env("READS", 200).max(1);
    let text = "x".repeat(env("TEXT", 200));
    let (client, _log) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database("bench_chat_variants");
    db.drop().await.expect("drop");
    Schema::new()
        .with::<Message>()
        .with::<MessageBucket>()
        .with::<SeriesMessage>()
        .sync(&db)
        .await
        .expect("sync");
    let room = "general".to_owned();
    let start = 1_796_000_000_000i64;
    let at = |i: usize| DateTime::from_millis(start + i as i64 * 1000);
    let mut rows = Vec::new();

    // One document per message.
    let messages = Repo::<Message>::new(&db);
    let appended = time_each(appends, |i| {
        let message = Message {
            id: ObjectId::new(),
            room_id: room.clone(),
            at: at(i),
            text: text.clone(),
        };
        let messages = &messages;
        async move { messages.insert(&message).await.expect("insert") }
    })
    .await;
    let newest = || {
        messages
            .children(Message::FIELDS.room_id, &room)
            .page_size(50)
    };
    let read = time_each(reads, |_| async {
        assert_eq!(newest().page().await.expect("page").items.len(), 50);
    })
    .await;
    rows.push(Row {
        name: "one document per message",
        appends: appended,
        reads: read,
        plan: newest().explain().await.expect("explain"),
        storage: storage(&db, "messages").await,
        documents: messages.count(doc! {}).scan().await.expect("count"),
    });

    // Buckets of 100.
    let buckets = Buckets::<MessageBucket>::new(&db);
    let appended = time_each(appends, |i| {
        let line = Line {
            at: at(i),
            text: text.clone(),
        };
        let (buckets, room) = (&buckets, &room);
        async move {
            buckets.push(room, &line).await.expect("push");
        }
    })
    .await;
    let read = time_each(reads, |_| async {
        assert_eq!(buckets.newest(&room, 50).await.expect("newest").len(), 50);
    })
    .await;
    rows.push(Row {
        name: "buckets of 100",
        appends: appended,
        reads: read,
        plan: buckets.items(&room).explain(50).await.expect("explain"),
        storage: storage(&db, "message_buckets").await,
        documents: buckets.repo().count(doc! {}).scan().await.expect("count"),
    });

    // A time series.
    let series = Repo::<SeriesMessage>::new(&db);
    let appended = time_each(appends, |i| {
        let message = SeriesMessage {
            id: ObjectId::new(),
            room_id: room.clone(),
            at: at(i),
            text: text.clone(),
        };
        let series = &series;
        async move { series.insert(&message).await.expect("insert") }
    })
    .await;
    let newest = || {
        series
            .find(SeriesMessage::FIELDS.room_id.eq(&room))
            .sort(SeriesMessage::FIELDS.at.desc())
            .limit(50)
    };
    let read = time_each(reads, |_| async {
        assert_eq!(newest().all().await.expect("find").len(), 50);
    })
    .await;
    rows.push(Row {
        name: "time series",
        appends: appended,
        reads: read,
        plan: newest().explain().await.expect("explain"),
        storage: storage(&db, "message_series").await,
        documents: series.count(doc! {}).scan().await.expect("count"),
    });

    println!(
        "{appends} appends of {}-byte messages to one room, then the newest 50 read {reads} times",
        text.len()
    );
    println!(
        "{:<26} {:>10} {:>10} {:>10} {:>10} {:>6} {:>6} {:>11} {:>11} {:>11}",
        "variant",
        "append p50",
        "append p90",
        "read p50",
        "documents",
        "keys",
        "docs",
        "size",
        "storageSize",
        "indexSize"
    );
    for row in &rows {
        println!(
            "{:<26} {:>8.0}us {:>8.0}us {:>8.0}us {:>10} {:>6} {:>6} {:>11} {:>11} {:>11}",
            row.name,
            us(median(&row.appends)),
            us(percentile(&row.appends, 90.0)),
            us(median(&row.reads)),
            row.documents,
            row.plan.keys_examined,
            row.plan.docs_examined,
            row.storage.0,
            row.storage.1,
            row.storage.2,
        );
    }
    for row in &rows {
        println!("{}: newest 50: {}", row.name, row.plan);
    }
}
