//! The bucket pattern's promises where handles race and forget, against the
//! real server: a handle whose remembered bucket was trimmed away (or
//! trimmed to room below the newest) pushes on above every bucket, racing
//! pushers with concurrent trims keep every bucket bounded and the items in
//! the order they were pushed, a bucket full by size (16 MiB) leaves the
//! next push to a new bucket, and before setup nothing is written.

use crate::support;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::Buckets;
use schema_core::{Error, Schema};
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

const MAX: usize = 7;

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Blob {
    n: i64,
    data: String,
}

/// Buckets of 20 blobs: 16 of 1 MiB do not fit in one.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(
    collection = "blob_buckets",
    bucket(parent = owner, items = blobs, count = count, seq = seq)
)]
struct BlobBucket {
    #[serde(rename = "_id")]
    id: ObjectId,
    owner: String,
    seq: i32,
    count: i64,
    #[embed(max = 20)]
    blobs: Vec<Blob>,
}

async fn synced(test: &str) -> mongodb::Database {
    let client = support::client().await;
    let db = support::fresh_db(&client, test).await;
    Schema::new()
        .with::<LineBucket>()
        .with::<BlobBucket>()
        .sync(&db)
        .await
        .unwrap();
    db
}

fn line(n: i64) -> Line {
    Line { n }
}

/// Every bucket of room `parent` as stored, in `seq` order.
async fn stored(db: &mongodb::Database, parent: &str) -> Vec<BsonDocument> {
    let mut cursor = db
        .collection::<BsonDocument>("line_buckets")
        .find(doc! { "roomId": parent })
        .sort(doc! { "seq": 1 })
        .await
        .unwrap();
    let mut out = Vec::new();
    while cursor.advance().await.unwrap() {
        out.push(cursor.deserialize_current().unwrap());
    }
    out
}

fn seq_of(bucket: &BsonDocument) -> i64 {
    match bucket.get("seq") {
        Some(bson::Bson::Int32(n)) => i64::from(*n),
        Some(bson::Bson::Int64(n)) => *n,
        other => panic!("seq {other:?}"),
    }
}

fn count_of(bucket: &BsonDocument) -> i64 {
    match bucket.get("count") {
        Some(bson::Bson::Int32(n)) => i64::from(*n),
        Some(bson::Bson::Int64(n)) => *n,
        other => panic!("count {other:?}"),
    }
}

/// The lines of `room` as stored, oldest first (bucket by bucket in `seq`
/// order, each bucket's array in order), each bucket checked: its count
/// exact, at most `MAX` items.
async fn stored_lines(db: &mongodb::Database, room: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for bucket in stored(db, room).await {
        let items = bucket.get_array("lines").unwrap();
        assert_eq!(count_of(&bucket) as usize, items.len(), "exact count");
        assert!(items.len() <= MAX, "bucket over its max: {bucket}");
        assert!(!items.is_empty(), "an empty bucket: {bucket}");
        out.extend(
            items
                .iter()
                .map(|i| i.as_document().unwrap().get_i64("n").unwrap()),
        );
    }
    out
}

#[tokio::test]
async fn a_handle_whose_bucket_was_trimmed_away_pushes_above_every_bucket() {
    let db = synced("bucket_stale_gone").await;
    let room = "r".to_owned();
    let a = Buckets::<LineBucket>::new(&db);
    let b = Buckets::<LineBucket>::new(&db);
    // A pushes once and remembers bucket 0.
    assert_eq!(a.push(&room, &line(0)).await.unwrap(), 0);
    // B pushes 30 more (buckets 0 to 4) and keeps the newest 10.
    for n in 1..=30 {
        b.push(&room, &line(n)).await.unwrap();
    }
    assert_eq!(b.trim(&room, 10).await.unwrap(), 21);
    let left: Vec<i64> = stored(&db, &room).await.iter().map(seq_of).collect();
    assert_eq!(left, [3, 4], "buckets 0 to 2 deleted");
    // A's next push goes on above bucket 4, not into a new bucket 1.
    let seq = a.push(&room, &line(31)).await.unwrap();
    assert!(seq >= 4, "pushed into bucket {seq}, below bucket 4");
    assert_eq!(b.newest(&room, 1).await.unwrap(), [line(31)]);
    let newest: Vec<i64> = a
        .newest(&room, 11)
        .await
        .unwrap()
        .iter()
        .map(|l| l.n)
        .collect();
    assert_eq!(newest, (21..=31).rev().collect::<Vec<_>>());
    assert_eq!(
        stored_lines(&db, &room).await,
        (21..=31).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_handle_whose_bucket_was_trimmed_to_room_below_the_newest_pushes_above_it() {
    let db = synced("bucket_stale_sliced").await;
    let room = "r".to_owned();
    let a = Buckets::<LineBucket>::new(&db);
    let b = Buckets::<LineBucket>::new(&db);
    for n in 0..27 {
        b.push(&room, &line(n)).await.unwrap();
    }
    // A fills bucket 3 and remembers it; B opens bucket 4.
    assert_eq!(a.push(&room, &line(27)).await.unwrap(), 3);
    for n in 28..31 {
        assert_eq!(b.push(&room, &line(n)).await.unwrap(), 4);
    }
    // The newest 5: bucket 4's three and the newest two of bucket 3, which
    // keeps them with room for five more, below bucket 4.
    assert_eq!(b.trim(&room, 5).await.unwrap(), 26);
    assert_eq!(stored_lines(&db, &room).await, (26..31).collect::<Vec<_>>());
    // A's next push must not go into bucket 3's room.
    a.push(&room, &line(31)).await.unwrap();
    assert_eq!(b.newest(&room, 1).await.unwrap(), [line(31)]);
    assert_eq!(stored_lines(&db, &room).await, (26..32).collect::<Vec<_>>());
    // And B's, too (it remembers bucket 4).
    b.push(&room, &line(32)).await.unwrap();
    assert_eq!(stored_lines(&db, &room).await, (26..33).collect::<Vec<_>>());
}

/// When each push of each pusher started and ended, on one clock shared by
/// every task: a push that ended before another started must sort before it.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u64,
    end: u64,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_pushers_and_trims_keep_buckets_bounded_and_items_in_push_order() {
    let db = synced("bucket_race_trims").await;
    // Three rounds, a room each: a race that goes wrong does not always.
    for round in 0..3 {
        race(&db, format!("lobby{round}")).await;
    }
}

/// 16 pushers and 3 trimmers on `room`, then the checks.
async fn race(db: &mongodb::Database, room: String) {
    const PUSHERS: i64 = 16;
    const EACH: i64 = 40;
    const TRIMMERS: u64 = 3;
    let clock = Arc::new(AtomicU64::new(0));
    // The trims stop once two thirds of the items are pushed: what they left
    // behind then meets the last third's pushes, which stay.
    let trimming = Arc::new(AtomicBool::new(true));
    let pushed = Arc::new(AtomicU64::new(0));

    let mut pushers = Vec::new();
    for p in 0..PUSHERS {
        // Each task a handle of its own, as separate processes would be.
        let mine = Buckets::<LineBucket>::new(db);
        let (room, clock) = (room.clone(), clock.clone());
        let (pushed, trimming) = (pushed.clone(), trimming.clone());
        pushers.push(tokio::spawn(async move {
            let mut spans = Vec::new();
            for i in 0..EACH {
                let n = p * 1000 + i;
                let start = clock.fetch_add(1, SeqCst);
                mine.push(&room, &line(n)).await.unwrap();
                let end = clock.fetch_add(1, SeqCst);
                spans.push((n, Span { start, end }));
                if pushed.fetch_add(1, SeqCst) + 1 >= (PUSHERS * EACH * 2 / 3) as u64 {
                    trimming.store(false, SeqCst);
                }
                // Pauses of 0 to 3 ms: a handle's memory of its last bucket
                // ages while the others push on.
                let pause = (p * 7 + i * 13) % 4;
                tokio::time::sleep(Duration::from_millis(pause as u64)).await;
            }
            spans
        }));
    }
    let mut trimmers = Vec::new();
    for t in 0..TRIMMERS {
        let mine = Buckets::<LineBucket>::new(db);
        let (room, trimming) = (room.clone(), trimming.clone());
        trimmers.push(tokio::spawn(async move {
            let mut trims = 0u64;
            while trimming.load(SeqCst) {
                // Keep between 8 and 30: the boundary anywhere in the
                // newest five buckets, sometimes at a bucket's edge.
                let keep = 8 + (t * 5 + trims * 7) % 23;
                mine.trim(&room, keep).await.unwrap();
                trims += 1;
                tokio::time::sleep(Duration::from_millis(1 + t)).await;
            }
            trims
        }));
    }
    let mut spans: HashMap<i64, Span> = HashMap::new();
    for task in pushers {
        spans.extend(task.await.unwrap());
    }
    let mut trims = 0;
    for task in trimmers {
        trims += task.await.unwrap();
    }

    let kept = stored_lines(db, &room).await;
    let unique: HashSet<i64> = kept.iter().copied().collect();
    assert_eq!(unique.len(), kept.len(), "an item stored twice");
    assert!(unique.iter().all(|n| spans.contains_key(n)));
    println!(
        "{room}: {PUSHERS} pushers x {EACH}, {trims} trims by {TRIMMERS} handles: {} items kept",
        kept.len()
    );
    assert!(trims >= TRIMMERS, "the trims ran");
    assert!(kept.len() < spans.len(), "the trims removed items");

    // In push order: no item stored after another whose push ended before
    // its own started.
    let mut later_min_end = u64::MAX;
    let mut later_n = -1;
    for &n in kept.iter().rev() {
        let span = spans[&n];
        assert!(
            later_min_end > span.start,
            "item {n} is stored before item {later_n}, whose push ended before its push started"
        );
        if span.end < later_min_end {
            (later_min_end, later_n) = (span.end, n);
        }
    }
    // Nothing lost: a trim removes the oldest items, so an item pushed after
    // a kept one was pushed is kept too.
    let oldest_kept_end = kept.iter().map(|n| spans[n].end).min().unwrap();
    for (n, span) in &spans {
        assert!(
            unique.contains(n) || span.start < oldest_kept_end,
            "item {n} is gone, though it was pushed after a kept item"
        );
    }
    // The reads agree: the newest n are the stored order's last n.
    let buckets = Buckets::<LineBucket>::new(db);
    for k in [1usize, 5, 13, kept.len()] {
        let newest: Vec<i64> = buckets
            .newest(&room, k as u32)
            .await
            .unwrap()
            .iter()
            .map(|l| l.n)
            .collect();
        let expected: Vec<i64> = kept.iter().rev().take(k).copied().collect();
        assert_eq!(newest, expected, "newest {k}");
    }
    assert_eq!(buckets.count(&room).await.unwrap(), kept.len() as u64);
    // A last trim, alone, is exact.
    let removed = buckets.trim(&room, 9).await.unwrap();
    assert_eq!(removed, kept.len() as u64 - 9);
    assert_eq!(stored_lines(db, &room).await, kept[kept.len() - 9..]);
}

#[tokio::test]
async fn a_bucket_full_by_size_leaves_the_next_push_to_a_new_bucket() {
    let db = synced("bucket_by_size").await;
    let owner = "o".to_owned();
    let blobs = Buckets::<BlobBucket>::new(&db);
    let mib = |n: i64| Blob {
        n,
        data: "x".repeat(1 << 20),
    };
    // Another handle pushes a small item first and remembers bucket 0.
    let stale = Buckets::<BlobBucket>::new(&db);
    let small = |n: i64| Blob {
        n,
        data: "small".into(),
    };
    assert_eq!(stale.push(&owner, &small(0)).await.unwrap(), 0);
    for n in 1..=15 {
        assert_eq!(blobs.push(&owner, &mib(n)).await.unwrap(), 0, "item {n}");
    }
    // The 16th MiB does not fit in bucket 0 (count 16 of 20): a new bucket.
    let first = blobs.push(&owner, &mib(16)).await.unwrap();
    assert!(first > 0, "item 16 went into bucket {first}");
    assert_eq!(blobs.push(&owner, &mib(17)).await.unwrap(), first);
    // The other handle's next (small) item goes on into the newest bucket,
    // not into what is left of bucket 0.
    assert_eq!(stale.push(&owner, &small(18)).await.unwrap(), first);
    // The buckets' places and counts (not their 16 MiB of items).
    let mut cursor = db
        .collection::<BsonDocument>("blob_buckets")
        .find(doc! { "owner": &owner })
        .projection(doc! { "seq": 1, "count": 1 })
        .sort(doc! { "seq": 1 })
        .await
        .unwrap();
    let mut shape = Vec::new();
    while cursor.advance().await.unwrap() {
        let b = cursor.deserialize_current().unwrap();
        shape.push((seq_of(&b), count_of(&b)));
    }
    // Bucket 0 moved up next to the new one: no handle that remembers it
    // pushes into it again.
    assert_eq!(shape, [(first - 1, 16), (first, 3)], "one new bucket, once");
    // Every item in push order, read a few at a time.
    let mut got = Vec::new();
    let mut after = None;
    loop {
        let mut q = blobs.items(&owner).oldest_first();
        if let Some(at) = after {
            q = q.after(at);
        }
        let page = q.page(4).await.unwrap();
        got.extend(page.items.iter().map(|b| (b.n, b.data.len())));
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    let expected: Vec<(i64, usize)> = (0..=18)
        .map(|n| (n, if n == 0 || n == 18 { 5 } else { 1 << 20 }))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(blobs.count(&owner).await.unwrap(), 19);
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
