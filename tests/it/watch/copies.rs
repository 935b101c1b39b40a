//! Extended references kept by a consumer (`#[copy(..., follow =
//! "consumer")]` and `CopyFollower`): seed 004's products holding sku ids
//! with their colors copied, one sku held by 20,000 products. The source's
//! update changes the source only (`verify` finds every holder stale until
//! the follower runs); the follower refreshes them in batches after the
//! commit, each holder written once per change (its version), with the
//! staleness of each holder measured; a follower killed mid-way (its task
//! dropped) resumes without loss and without rewriting a refreshed holder;
//! and the same change in the transactional mode, with its size.
//!
//! Figures: `cargo test --features tracing --test it -- watch::copies::
//! --nocapture --test-threads=1` (in BENCHMARKS.md).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use futures_util::TryStreamExt;
use mongodb::Database;
use schema_core::prelude::*;
use schema_core::{Copies, CopyFollower, FollowedBatch, Lease, Schema, CONSUMERS};
use serde::{Deserialize, Serialize};

use crate::support;

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "skus")]
struct Sku {
    #[serde(rename = "_id")]
    id: ObjectId,
    color: String,
    size: String,
}

/// A product whose colors a consumer follows.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "products", version, index(keys(colors = asc)))]
struct Product {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[many_to_many(one_sided, to = Sku, max = 20)]
    skus: Vec<ObjectId>,
    #[embed(max = 20)]
    #[copy(from = skus, field = color, follow = "consumer")]
    colors: Vec<String>,
    version: i64,
}

/// The same product, its colors rewritten in the source's transaction.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "products_in_txn", version, index(keys(colors = asc)))]
struct TxnProduct {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[many_to_many(one_sided, to = Sku, max = 20)]
    skus: Vec<ObjectId>,
    #[embed(max = 20)]
    #[copy(from = skus, field = color)]
    colors: Vec<String>,
    version: i64,
}

const HOLDERS: usize = 20_000;
const OTHERS: [&str; 4] = ["white", "green", "grey", "navy"];

/// The most a test waits for the follower.
const CATCH_UP: Duration = Duration::from_secs(120);

/// A lease that outlasts the handling of one change of 20,000 holders (the
/// consumer renews it between changes: a handling that outlasts it loses
/// it, and the change is handled again, reading every holder and writing
/// none).
fn long_lease() -> Lease {
    Lease::default().duration(Duration::from_secs(120))
}

/// A short lease, so that the killed follower's is quickly taken over.
fn short_lease() -> Lease {
    Lease::default()
        .duration(Duration::from_millis(800))
        .renew_every(Duration::from_millis(200))
        .poll_every(Duration::from_millis(100))
}

/// A black sku held by `holders` products of each kind, each holding one
/// of four other skus too; the black sku's id.
async fn seed(db: &Database, holders: usize) -> ObjectId {
    Schema::new()
        .with::<Sku>()
        .with::<Product>()
        .with::<TxnProduct>()
        .sync(db)
        .await
        .unwrap();
    let hot = Sku {
        id: ObjectId::new(),
        color: "black".into(),
        size: "M".into(),
    };
    let others: Vec<Sku> = OTHERS
        .iter()
        .map(|c| Sku {
            id: ObjectId::new(),
            color: (*c).into(),
            size: "M".into(),
        })
        .collect();
    Repo::<Sku>::new(db).insert(&hot).await.unwrap();
    Repo::<Sku>::new(db).insert_many(&others).await.unwrap();
    let product = |i: usize| {
        let other = &others[i % others.len()];
        Product {
            id: ObjectId::new(),
            skus: vec![hot.id, other.id],
            colors: vec!["black".into(), other.color.clone()],
            version: 0,
        }
    };
    let products: Vec<Product> = (0..holders).map(product).collect();
    let in_txn: Vec<TxnProduct> = (0..holders)
        .map(|i| {
            let p = product(i);
            TxnProduct {
                id: p.id,
                skus: p.skus,
                colors: p.colors,
                version: 0,
            }
        })
        .collect();
    for chunk in products.chunks(2_000) {
        Repo::<Product>::new(db).insert_many(chunk).await.unwrap();
    }
    for chunk in in_txn.chunks(2_000) {
        Repo::<TxnProduct>::new(db)
            .insert_many(chunk)
            .await
            .unwrap();
    }
    hot.id
}

async fn recolor<H: Document>(db: &Database, sku: &ObjectId, color: &str) {
    let color = color.to_owned();
    let matched = Copies::<H>::new(db)
        .update::<Sku, _>(sku, || Sku::FIELDS.color.set(&color))
        .await
        .unwrap();
    assert!(matched);
}

/// How many holders of `collection` hold `color`, and at which versions.
async fn holding(db: &Database, collection: &str, color: &str) -> (u64, Vec<i64>) {
    let coll = db.collection::<BsonDocument>(collection);
    let n = coll
        .count_documents(doc! { "colors": color })
        .await
        .unwrap();
    let versions: Vec<i64> = coll
        .distinct("version", doc! {})
        .await
        .unwrap()
        .iter()
        .map(|v| v.as_i64().or(v.as_i32().map(i64::from)).unwrap())
        .collect();
    (n, versions)
}

/// Waits until the consumer `name` saved where it starts.
async fn started(db: &Database, name: &str) {
    let deadline = Instant::now() + CATCH_UP;
    loop {
        let position = db
            .collection::<BsonDocument>(CONSUMERS)
            .find_one(doc! { "_id": name })
            .await
            .unwrap();
        if position.is_some_and(|p| p.get_document("token").is_ok()) {
            return;
        }
        assert!(Instant::now() < deadline, "the follower never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

type Batches = Arc<Mutex<Vec<FollowedBatch>>>;

/// Runs a follower of `Product`'s colors named `name` in a local task, its
/// batches of `size` pushed to the returned list.
fn spawn_follower(
    db: &Database,
    name: &str,
    size: usize,
    lease: Lease,
) -> (
    tokio::task::JoinHandle<schema_core::Result<schema_core::Ran>>,
    schema_core::Stopper,
    Batches,
) {
    let follower = CopyFollower::<Product, Sku>::new(name, db)
        .batch(size)
        .lease(lease);
    let stop = follower.stopper();
    let batches: Batches = Arc::default();
    let seen = batches.clone();
    let task = tokio::task::spawn_local(async move {
        follower
            .run_observed(|b| seen.lock().unwrap().push(b.clone()))
            .await
    });
    (task, stop, batches)
}

/// Waits until the batches in `batches` have written `n` copies.
async fn written(batches: &Batches, n: u64) {
    let deadline = Instant::now() + CATCH_UP;
    loop {
        let sum: u64 = batches.lock().unwrap().iter().map(|b| b.written).sum();
        assert!(sum <= n, "{sum} copies written, more than {n}");
        if sum == n {
            return;
        }
        assert!(Instant::now() < deadline, "{sum} of {n} copies written");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The size of `doc` as BSON.
fn bson_len(doc: &BsonDocument) -> usize {
    let mut bytes = Vec::new();
    doc.to_writer(&mut bytes).unwrap();
    bytes.len()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at]
}

#[tokio::test]
async fn a_consumer_refreshes_20000_holders_after_the_source_commits() {
    tokio::task::LocalSet::new()
        .run_until(a_consumer_refreshes_20000_holders_after_the_source_commits_body())
        .await;
}

async fn a_consumer_refreshes_20000_holders_after_the_source_commits_body() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "copies_follow").await;
    let hot = seed(&db, HOLDERS).await;
    let copies = Copies::<Product>::new(&db);

    // The follower saves where it starts, and is stopped.
    let (task, stop, _) = spawn_follower(&db, "product-colors", 1_000, long_lease());
    started(&db, "product-colors").await;
    stop.stop();
    task.await.unwrap().unwrap();

    // The update changes the source only: every holder is stale, and
    // `verify` says so.
    recolor::<Product>(&db, &hot, "red").await;
    assert_eq!(holding(&db, "products", "red").await, (0, vec![0]));
    let report = copies.verify().await.unwrap();
    assert_eq!(report.holders, HOLDERS as u64);
    assert_eq!(report.out_of_sync.len(), HOLDERS);

    // Run again, the follower catches up from its saved position.
    let (task, stop, batches) = spawn_follower(&db, "product-colors", 1_000, long_lease());
    written(&batches, HOLDERS as u64).await;
    assert_eq!(
        holding(&db, "products", "red").await,
        (HOLDERS as u64, vec![1])
    );
    assert!(batches.lock().unwrap().iter().all(|b| b.read <= 1_000));

    // Live: the staleness of each holder, from the source's commit to its
    // batch's.
    batches.lock().unwrap().clear();
    let sent = Instant::now();
    recolor::<Product>(&db, &hot, "blue").await;
    let committed = Instant::now();
    written(&batches, HOLDERS as u64).await;
    let mut stale: Vec<Duration> = Vec::with_capacity(HOLDERS);
    for b in batches.lock().unwrap().iter() {
        let age = b.committed_at.saturating_duration_since(committed);
        stale.extend(std::iter::repeat_n(age, b.written as usize));
    }
    stale.sort();
    let all = *stale.last().unwrap();
    let report = copies.verify().await.unwrap();
    assert!(report.is_consistent(), "{:?}", &report.out_of_sync[..3]);
    assert_eq!(
        holding(&db, "products", "blue").await,
        (HOLDERS as u64, vec![2]),
        "each holder written once per change"
    );
    let n = batches.lock().unwrap().len();
    assert_eq!(n, HOLDERS / 1_000, "each batch read once");
    println!(
        "consumer mode, {HOLDERS} holders in {n} batches of 1000: source update {:.1} ms; \
         staleness p50 {:.0} ms, p99 {:.0} ms, all refreshed {:.0} ms after the commit",
        (committed - sent).as_secs_f64() * 1e3,
        percentile(&stale, 0.5).as_secs_f64() * 1e3,
        percentile(&stale, 0.99).as_secs_f64() * 1e3,
        all.as_secs_f64() * 1e3,
    );

    // An update of another field than the copied one is passed over: once
    // the follower's position moved past them (waited for, not slept on),
    // nothing was written.
    let handled = async || {
        db.collection::<BsonDocument>(CONSUMERS)
            .find_one(doc! { "_id": "product-colors" })
            .await
            .unwrap()
            .and_then(|p| p.get_i64("handled").ok())
            .unwrap_or(0)
    };
    let before = handled().await;
    batches.lock().unwrap().clear();
    let xl = "XL".to_owned();
    Repo::<Sku>::new(&db)
        .update(&hot, Sku::FIELDS.size.set(&xl))
        .await
        .unwrap();
    recolor::<Product>(&db, &hot, "blue").await; // matched, unchanged
                                                 // A last change the follower passes over, to wait for: the server may
                                                 // log no change for the unchanged recolor, and changes come in order.
    Repo::<Sku>::new(&db)
        .update(&hot, Sku::FIELDS.size.set(&"L".to_owned()))
        .await
        .unwrap();
    let deadline = Instant::now() + CATCH_UP;
    while handled().await < before + 2 {
        assert!(Instant::now() < deadline, "the follower never passed both");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        batches
            .lock()
            .unwrap()
            .iter()
            .map(|b| b.written)
            .sum::<u64>(),
        0
    );
    stop.stop();
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_follower_killed_mid_way_resumes_without_loss_or_rewrite() {
    tokio::task::LocalSet::new()
        .run_until(a_follower_killed_mid_way_resumes_without_loss_or_rewrite_body())
        .await;
}

async fn a_follower_killed_mid_way_resumes_without_loss_or_rewrite_body() {
    const N: usize = 5_000;
    let client = support::client().await;
    let db = support::fresh_db(&client, "copies_follow_kill").await;
    let hot = seed(&db, N).await;

    let (task, _, batches) = spawn_follower(&db, "colors-kill", 500, short_lease());
    started(&db, "colors-kill").await;
    recolor::<Product>(&db, &hot, "red").await;
    let deadline = Instant::now() + CATCH_UP;
    while batches.lock().unwrap().len() < 3 {
        assert!(Instant::now() < deadline, "no batch written");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    // Killed mid-change: its task dropped, the lease left to expire.
    task.abort();
    let _ = task.await;
    let (done, _) = holding(&db, "products", "red").await;
    assert!(
        (1_500..N as u64).contains(&done),
        "{done} refreshed when killed"
    );

    let (task, stop, batches) = spawn_follower(&db, "colors-kill", 500, short_lease());
    written(&batches, N as u64 - done).await;
    let read: u64 = batches.lock().unwrap().iter().map(|b| b.read).sum();
    assert_eq!(read, N as u64, "the change handled again from its start");
    assert_eq!(holding(&db, "products", "red").await, (N as u64, vec![1]));
    assert!(Copies::<Product>::new(&db)
        .verify()
        .await
        .unwrap()
        .is_consistent());
    stop.stop();
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn the_same_change_in_the_source_transaction_for_comparison() {
    tokio::task::LocalSet::new()
        .run_until(the_same_change_in_the_source_transaction_for_comparison_body())
        .await;
}

async fn the_same_change_in_the_source_transaction_for_comparison_body() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "copies_follow_txn").await;
    let hot = seed(&db, HOLDERS).await;
    let oplog = client
        .database("local")
        .collection::<BsonDocument>("oplog.rs");
    let last = oplog
        .find_one(doc! {})
        .sort(doc! { "ts": -1 })
        .await
        .ok()
        .flatten()
        .and_then(|e| e.get_timestamp("ts").ok());

    let color = "red".to_owned();
    let started = Instant::now();
    let outcome = Copies::<TxnProduct>::new(&db)
        .update::<Sku, _>(&hot, || Sku::FIELDS.color.set(&color))
        .await;
    let took = started.elapsed();
    let (written, _) = holding(&db, "products_in_txn", "red").await;
    let copies = Copies::<TxnProduct>::new(&db);
    assert!(copies.verify().await.unwrap().is_consistent());
    match outcome {
        Ok(matched) => {
            assert!(matched);
            assert_eq!(written, HOLDERS as u64);
        }
        Err(e) => {
            // A finding, not a failure: the server refused the size. Then
            // nothing of it is kept.
            assert_eq!(written, 0);
            println!("transactional mode at {HOLDERS} holders failed after {took:?}: {e}");
        }
    }
    // The transaction's writes: each holder's update as the client sent
    // it (filter and update), and the oplog's entries where it can be
    // read.
    let mut sent = 0usize;
    let mut cursor = db
        .collection::<BsonDocument>("products_in_txn")
        .find(doc! { "colors": "red" })
        .projection(doc! { "colors": 1 })
        .await
        .unwrap();
    while let Some(holder) = cursor.try_next().await.unwrap() {
        let filter = doc! { "_id": holder.get("_id").unwrap().clone() };
        let update = doc! {
            "$set": { "colors": holder.get("colors").unwrap().clone() },
            "$inc": { "version": 1_i64 },
        };
        sent += bson_len(&filter) + bson_len(&update);
    }
    let in_oplog = match last {
        Some(ts) => {
            let entries: Vec<BsonDocument> = oplog
                .find(doc! { "ts": { "$gt": ts }, "$or": [
                    { "ns": format!("{}.products_in_txn", db.name()) },
                    { "o.applyOps": { "$exists": true } },
                ] })
                .await
                .unwrap()
                .try_collect()
                .await
                .unwrap();
            let bytes: usize = entries.iter().map(bson_len).sum();
            format!("{} oplog entries, {bytes} bytes", entries.len())
        }
        None => "the oplog is not readable on this server".to_owned(),
    };
    println!(
        "transactional mode, {HOLDERS} holders: one transaction of {:.0} ms writing {written} \
         holders, {:.2} MiB of updates sent; {in_oplog}",
        took.as_secs_f64() * 1e3,
        sent as f64 / 1048576.0,
    );
}
