//! The bucket pattern against the real server: racing pushers never
//! overfill a bucket nor lose an item, the newest items ride the `(parent,
//! seq)` index and read `ceil(k / max) + 1` buckets, pages cross bucket
//! boundaries in both directions, and a trim keeps the counts exact.

mod races;

use crate::support;

use std::collections::HashSet;

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::Schema;
use schema_core::{BucketCursor, Buckets};
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Message {
    n: i64,
    by: String,
}

/// Buckets of 10 messages of one room.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(
    collection = "room_buckets",
    bucket(parent = room_id, items = messages, count = count, seq = seq)
)]
struct RoomBucket {
    #[serde(rename = "_id")]
    id: ObjectId,
    room_id: String,
    seq: i32,
    count: i64,
    #[embed(max = 10)]
    messages: Vec<Message>,
    /// A summary the application keeps: null in a bucket the framework opens.
    topic: Option<String>,
}

const MAX: usize = 10;

async fn rooms(test: &str) -> (mongodb::Database, Buckets<RoomBucket>) {
    let client = support::client().await;
    let db = support::fresh_db(&client, test).await;
    Schema::new().with::<RoomBucket>().sync(&db).await.unwrap();
    (db.clone(), Buckets::<RoomBucket>::new(&db))
}

fn message(n: i64, by: &str) -> Message {
    Message {
        n,
        by: by.to_owned(),
    }
}

/// Every bucket of `room` as stored, in `seq` order.
async fn stored(db: &mongodb::Database, room: &str) -> Vec<BsonDocument> {
    let mut cursor = db
        .collection::<BsonDocument>("room_buckets")
        .find(doc! { "roomId": room })
        .sort(doc! { "seq": 1 })
        .await
        .unwrap();
    let mut out = Vec::new();
    while cursor.advance().await.unwrap() {
        out.push(cursor.deserialize_current().unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_pushers_never_overfill_a_bucket_nor_lose_an_item() {
    let (db, buckets) = rooms("buckets_race").await;
    let room = "lobby".to_owned();
    const PUSHERS: i64 = 8;
    const EACH: i64 = 60;
    let mut tasks = Vec::new();
    for p in 0..PUSHERS {
        // Each pusher a `Buckets` of its own, as separate processes would be.
        let mine = Buckets::<RoomBucket>::new(&db);
        let room = room.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..EACH {
                mine.push(&room, &message(p * 1000 + i, &format!("p{p}")))
                    .await
                    .unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let all = stored(&db, &room).await;
    let mut seen = HashSet::new();
    let mut partial = 0;
    for (i, bucket) in all.iter().enumerate() {
        let items = bucket.get_array("messages").unwrap();
        let count = bucket.get_i64("count").unwrap() as usize;
        assert_eq!(count, items.len(), "bucket {i}: the count is exact");
        assert!(
            items.len() <= MAX,
            "bucket {i} holds {} > {MAX}",
            items.len()
        );
        assert_eq!(bucket.get_i32("seq").unwrap(), i as i32, "seq without gaps");
        assert!(bucket.get("topic").unwrap().as_null().is_some());
        if items.len() < MAX {
            partial += 1;
        }
        for item in items {
            let n = item.as_document().unwrap().get_i64("n").unwrap();
            assert!(seen.insert(n), "item {n} stored twice");
        }
    }
    assert_eq!(seen.len() as i64, PUSHERS * EACH, "every item stored once");
    println!(
        "{PUSHERS} racing pushers, {} items: {} buckets of {MAX}, {partial} partly filled",
        PUSHERS * EACH,
        all.len()
    );
    assert!(
        partial <= 1,
        "only the newest bucket may have room: {partial}"
    );
    // Each pusher's own items keep their order (a bucket's `$push` order).
    let page = buckets
        .items(&room)
        .oldest_first()
        .page(u32::MAX)
        .await
        .unwrap();
    for p in 0..PUSHERS {
        let mine: Vec<i64> = page
            .items
            .iter()
            .filter(|m| m.by == format!("p{p}"))
            .map(|m| m.n)
            .collect();
        let mut sorted = mine.clone();
        sorted.sort();
        assert_eq!(mine, sorted, "pusher {p}'s items in its order");
    }
    assert_eq!(buckets.count(&room).await.unwrap(), (PUSHERS * EACH) as u64);
}

#[tokio::test]
async fn the_newest_items_read_ceil_k_over_max_plus_one_buckets_on_the_index() {
    let (_db, buckets) = rooms("buckets_newest").await;
    let room = "r".to_owned();
    for n in 0..95 {
        buckets.push(&room, &message(n, "a")).await.unwrap();
    }
    for k in [1u32, 10, 25, 50] {
        let newest = buckets.newest(&room, k).await.unwrap();
        let expected: Vec<i64> = (0..95).rev().take(k as usize).collect();
        assert_eq!(newest.iter().map(|m| m.n).collect::<Vec<_>>(), expected);
        let plan = buckets.items(&room).explain(k).await.unwrap();
        println!("newest {k}: {plan}");
        assert!(!plan.is_collscan(), "{plan}");
        assert!(plan.to_string().contains("roomId_1_seq_-1"), "{plan}");
        let buckets_read = k.div_ceil(MAX as u32) as u64 + 1;
        assert_eq!(plan.docs_examined, buckets_read, "{plan}");
        assert!(plan.keys_examined <= buckets_read, "{plan}");
    }
}

#[tokio::test]
async fn pages_cross_bucket_boundaries_in_both_directions() {
    let (_db, buckets) = rooms("buckets_pages").await;
    let room = "r".to_owned();
    const N: i64 = 257;
    for n in 0..N {
        buckets.push(&room, &message(n, "a")).await.unwrap();
    }
    for size in [1u32, 7, 10, 13, 300] {
        // Newest first.
        let mut got = Vec::new();
        let mut after: Option<BucketCursor> = None;
        loop {
            let mut q = buckets.items(&room);
            if let Some(at) = after {
                q = q.after(at);
            }
            let page = q.page(size).await.unwrap();
            assert!(page.items.len() <= size as usize);
            got.extend(page.items.iter().map(|m| m.n));
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        assert_eq!(
            got,
            (0..N).rev().collect::<Vec<_>>(),
            "newest first, size {size}"
        );
        // Oldest first.
        let mut got = Vec::new();
        let mut after: Option<BucketCursor> = None;
        loop {
            let mut q = buckets.items(&room).oldest_first();
            if let Some(at) = after {
                q = q.after(at);
            }
            let page = q.page(size).await.unwrap();
            got.extend(page.items.iter().map(|m| m.n));
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        assert_eq!(got, (0..N).collect::<Vec<_>>(), "oldest first, size {size}");
    }
}

#[tokio::test]
async fn a_trim_keeps_the_newest_items_and_exact_counts() {
    let (db, buckets) = rooms("buckets_trim").await;
    let room = "r".to_owned();
    for n in 0..87 {
        buckets.push(&room, &message(n, "a")).await.unwrap();
    }
    assert_eq!(buckets.trim(&room, 55).await.unwrap(), 32);
    assert_eq!(buckets.count(&room).await.unwrap(), 55);
    let newest = buckets.newest(&room, 100).await.unwrap();
    assert_eq!(
        newest.iter().map(|m| m.n).collect::<Vec<_>>(),
        (32..87).rev().collect::<Vec<_>>()
    );
    for bucket in stored(&db, &room).await {
        let items = bucket.get_array("messages").unwrap().len() as i64;
        assert_eq!(bucket.get_i64("count").unwrap(), items, "exact counts");
    }
    // Pushes after a trim go on into the newest bucket.
    buckets.push(&room, &message(87, "a")).await.unwrap();
    assert_eq!(buckets.newest(&room, 1).await.unwrap()[0].n, 87);
    // Trim to nothing, and to more than there is.
    assert_eq!(buckets.trim(&room, 1000).await.unwrap(), 0);
    assert_eq!(buckets.trim(&room, 0).await.unwrap(), 56);
    assert_eq!(buckets.count(&room).await.unwrap(), 0);
    assert!(stored(&db, &room).await.is_empty());
}
