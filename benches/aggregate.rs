//! Typed aggregation against the same pipeline sent raw through the driver,
//! interleaved in one run: 20,000 orders of 1 to 4 line items (seed 001's
//! shape) and 20,000 posts of 200 authors (seed 000's).
//!
//! - **revenue**: revenue per product, `unwind` of the line items then a
//!   group (sum of `qty * unit_price`, sum of `qty`, count), sorted by
//!   revenue; every order, on purpose (`.scan()`).
//! - **top_n**: posts per author on the `{authorId, at, _id}` index (the
//!   leading sort), each author's newest five titles (`$firstN`), the ten
//!   authors with the newest post.
//! - **count_by**: orders per status (group key and count), every order.
//! - **on_index**: the orders of the last 5,000 hours by a range and a sort
//!   on the `created_at` index, then revenue per day (`$dateTrunc`).
//!
//! Each side reads the rows as the same row type: the typed side through
//! `Repo::aggregate` (the guard planned, the pipeline built from the
//! row's spec, the rows decoded by the `DocStream`), the raw side through
//! `Collection::<Row>::aggregate` with a hand-written pipeline of the same
//! stages (its `$group` keyed by the field itself, as written by hand,
//! where the row's key is a sub-document `{product_id: ..}`) and the same
//! batch size. A first round of each, not counted, checks that both give
//! the same rows. Each row prints the median milliseconds of each side and
//! the median of the per-round ratios typed/raw with its p10-p90.
//!
//! Run: `cargo bench --bench aggregate` (uses `MONGODB_URI` when set,
//! otherwise starts an embedded `secantusd-rs`). `ROUNDS=N` (default 30),
//! `DOCS=N` (default 20000, of each model).

use std::future::Future;
use std::time::{Duration, Instant};

use bson::oid::ObjectId;
use bson::{doc, DateTime, Document as BsonDocument};
use futures_util::TryStreamExt;
use mongodb::Database;
use schema_core::prelude::*;
use schema_core::{Schema, DEFAULT_BATCH_SIZE};
use schema_testkit::models::Post;
use schema_testkit::stats::{median, Spread};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

const HOUR_MS: i64 = 3_600_000;
const START_MS: i64 = 1_700_000_000_000;

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "orders", index(keys(created_at = asc)))]
struct Order {
    #[serde(rename = "_id")]
    id: ObjectId,
    status: String,
    #[embed(max = 100)]
    items: Vec<LineItem>,
    total: f64,
    created_at: DateTime,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone)]
struct LineItem {
    product_id: ObjectId,
    qty: i32,
    unit_price: f64,
}

#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = Order)]
struct Revenue {
    #[group(key = items.product_id)]
    product_id: ObjectId,
    #[group(sum = items.qty * items.unit_price)]
    revenue: f64,
    #[group(sum = items.qty)]
    units: i64,
    #[group(count)]
    lines: i64,
}

#[derive(Row, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[row(of = Post)]
struct ByAuthor {
    #[group(key = author_id)]
    author_id: String,
    #[group(count)]
    posts: i64,
    #[group(push = title, max = 5, bytes = 200)]
    newest_titles: Vec<String>,
    #[group(first = at)]
    latest: DateTime,
}

#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = Order)]
struct PerStatus {
    #[group(key = status)]
    status: String,
    #[group(count)]
    orders: i64,
}

#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = Order)]
struct PerDay {
    #[group(key = created_at, trunc = day)]
    day: DateTime,
    #[group(sum = total)]
    revenue: f64,
    #[group(count)]
    orders: i64,
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn seed(db: &Database, docs: usize) {
    Schema::new()
        .with::<Order>()
        .with::<Post>()
        .sync(db)
        .await
        .expect("sync");
    let products: Vec<ObjectId> = (0..50u8).map(|i| ObjectId::from_bytes([i; 12])).collect();
    let statuses = ["paid", "shipped", "delivered", "returned"];
    let orders: Vec<Order> = (0..docs)
        .map(|i| {
            let items: Vec<LineItem> = (0..1 + i % 4)
                .map(|l| LineItem {
                    product_id: products[(i * 7 + l * 3) % products.len()],
                    qty: 1 + ((i + l * 5) % 9) as i32,
                    unit_price: 2.5 * (1 + (i + l) % 7) as f64,
                })
                .collect();
            Order {
                id: ObjectId::new(),
                status: statuses[i % statuses.len()].to_owned(),
                total: items.iter().map(|l| f64::from(l.qty) * l.unit_price).sum(),
                items,
                created_at: DateTime::from_millis(START_MS + i as i64 * HOUR_MS),
            }
        })
        .collect();
    let posts: Vec<Post> = (0..docs)
        .map(|i| Post {
            id: format!("p{i:06}"),
            author_id: format!("u{:03}", i % 200),
            title: format!("post number {i}"),
            tags: vec![],
            at: DateTime::from_millis(START_MS + (i as i64 * 7_919) % 100_000 * 60_000),
        })
        .collect();
    let (o, p) = (Repo::<Order>::new(db), Repo::<Post>::new(db));
    for chunk in orders.chunks(5_000) {
        o.insert_many(chunk).await.expect("seed orders");
    }
    for chunk in posts.chunks(5_000) {
        p.insert_many(chunk).await.expect("seed posts");
    }
}

/// The rows of a hand-written pipeline, through the raw driver.
async fn raw<T: DeserializeOwned + Send + Sync>(
    db: &Database,
    collection: &str,
    pipeline: Vec<BsonDocument>,
) -> Vec<T> {
    db.collection::<T>(collection)
        .aggregate(pipeline)
        .with_type::<T>()
        .batch_size(DEFAULT_BATCH_SIZE)
        .await
        .expect("raw aggregate")
        .try_collect()
        .await
        .expect("raw rows")
}

async fn timed<T, F: Future<Output = Vec<T>>>(side: F) -> (Duration, usize) {
    let start = Instant::now();
    let rows = side.await;
    (start.elapsed(), rows.len())
}

/// One shape: a first round of each side checked equal, then `rounds`
/// interleaved (the side that goes first alternates); prints its row.
async fn shape<T, FT, FR, A, B>(name: &str, rounds: usize, typed: A, raw: B)
where
    T: PartialEq + std::fmt::Debug,
    FT: Future<Output = Vec<T>>,
    FR: Future<Output = Vec<T>>,
    A: Fn() -> FT,
    B: Fn() -> FR,
{
    let (t, r) = (typed().await, raw().await);
    assert_eq!(
        t, r,
        "{name}: the typed rows differ from the raw pipeline's"
    );
    assert!(!t.is_empty(), "{name}: no rows");
    let (mut typed_times, mut raw_times) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        if round % 2 == 0 {
            typed_times.push(timed(typed()).await.0);
            raw_times.push(timed(raw()).await.0);
        } else {
            raw_times.push(timed(raw()).await.0);
            typed_times.push(timed(typed()).await.0);
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{name:<9} {:>5} rows   typed {:>8.2} ms   raw {:>8.2} ms   typed/raw {}",
        t.len(),
        ms(median(&typed_times)),
        ms(median(&raw_times)),
        Spread::of_ratios(&typed_times, &raw_times)
    );
}

#[tokio::main]
async fn main() {
    let rounds = env("ROUNDS", 30).max(1);
    let docs = env("DOCS", 20_000).max(400);
    let (client, _log) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database("bench_aggregate");
    db.drop().await.expect("drop");
    seed(&db, docs).await;
    let (orders, posts) = (Repo::<Order>::new(&db), Repo::<Post>::new(&db));
    let (o, p) = (Order::FIELDS, Post::FIELDS);
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        print!("load average {}; ", load.split(' ').next().unwrap_or("?"));
    }
    println!(
        "{docs} orders, {docs} posts; {rounds} interleaved rounds; medians; ratio: median of \
         the per-round ratios typed/raw, p10-p90"
    );

    shape(
        "revenue",
        rounds,
        || async {
            orders
                .aggregate()
                .scan()
                .unwind(o.items)
                .group::<Revenue>()
                .sort(Revenue::FIELDS.revenue.desc())
                .sort(Revenue::FIELDS.product_id.asc())
                .all()
                .await
                .expect("typed")
        },
        || {
            raw::<Revenue>(
                &db,
                "orders",
                vec![
                    doc! { "$unwind": "$items" },
                    doc! { "$group": {
                        "_id": "$items.product_id",
                        "revenue": { "$sum": { "$multiply": ["$items.qty", "$items.unit_price"] } },
                        "units": { "$sum": "$items.qty" },
                        "lines": { "$sum": 1 },
                    } },
                    doc! { "$project": { "_id": 0, "product_id": "$_id", "revenue": 1, "units": 1, "lines": 1 } },
                    doc! { "$sort": { "revenue": -1, "product_id": 1 } },
                ],
            )
        },
    )
    .await;

    shape(
        "top_n",
        rounds,
        || async {
            posts
                .aggregate()
                .sort(p.author_id.asc())
                .sort(p.at.desc())
                .sort(p.id.desc())
                .group::<ByAuthor>()
                .sort(ByAuthor::FIELDS.latest.desc())
                .sort(ByAuthor::FIELDS.author_id.asc())
                .limit(10)
                .all()
                .await
                .expect("typed")
        },
        || {
            raw::<ByAuthor>(
                &db,
                "posts",
                vec![
                    doc! { "$sort": { "authorId": 1, "at": -1, "_id": -1 } },
                    doc! { "$group": {
                        "_id": "$authorId",
                        "posts": { "$sum": 1 },
                        "newestTitles": { "$firstN": { "input": "$title", "n": 5 } },
                        "latest": { "$first": "$at" },
                    } },
                    doc! { "$project": { "_id": 0, "authorId": "$_id", "posts": 1, "newestTitles": 1, "latest": 1 } },
                    doc! { "$sort": { "latest": -1, "authorId": 1 } },
                    doc! { "$limit": 10 },
                ],
            )
        },
    )
    .await;

    shape(
        "count_by",
        rounds,
        || async {
            orders
                .aggregate()
                .scan()
                .group::<PerStatus>()
                .sort(PerStatus::FIELDS.status.asc())
                .all()
                .await
                .expect("typed")
        },
        || {
            raw::<PerStatus>(
                &db,
                "orders",
                vec![
                    doc! { "$group": { "_id": "$status", "orders": { "$sum": 1 } } },
                    doc! { "$project": { "_id": 0, "status": "$_id", "orders": 1 } },
                    doc! { "$sort": { "status": 1 } },
                ],
            )
        },
    )
    .await;

    let since = DateTime::from_millis(START_MS + (docs as i64 - 5_000) * HOUR_MS);
    shape(
        "on_index",
        rounds,
        || async {
            orders
                .aggregate()
                .filter(o.created_at.gte(&since))
                .sort(o.created_at.asc())
                .group::<PerDay>()
                .sort(PerDay::FIELDS.day.asc())
                .all()
                .await
                .expect("typed")
        },
        || {
            raw::<PerDay>(
                &db,
                "orders",
                vec![
                    doc! { "$match": { "created_at": { "$gte": since } } },
                    doc! { "$sort": { "created_at": 1 } },
                    doc! { "$group": {
                        "_id": { "$dateTrunc": { "date": "$created_at", "unit": "day" } },
                        "revenue": { "$sum": "$total" },
                        "orders": { "$sum": 1 },
                    } },
                    doc! { "$project": { "_id": 0, "day": "$_id", "revenue": 1, "orders": 1 } },
                    doc! { "$sort": { "day": 1 } },
                ],
            )
        },
    )
    .await;
}
