//! Seed 000's chat room as a benchmark: the latency of a tiny `$set` on a room
//! document as the room accumulates 8,000-byte messages, for two models side
//! by side in one run:
//!
//! - array: one `rooms` document whose `messages` array is `$push`ed, written
//!   with the raw driver, because the framework refuses that model (an
//!   unbounded `Vec` does not compile). It lives in a database of its own,
//!   with one tiny "neighbor" room in the same collection;
//! - referenced: the framework's model, one `roomMessages` document per
//!   message with an indexed `{roomId: 1, n: -1, _id: -1}` (set up by `Schema::sync`),
//!   so the room document stays tiny.
//!
//! Messages are added to both models alternately, in batches of `BATCH`
//! (default 10: `$push` with `$each`, `insert_many`), then the last 5 before
//! each mark one write each, timed. At each mark (1, 100, 500, 1,000, 1,500,
//! 2,000 messages) it times `UPDATES` (default 21) tiny updates per room,
//! interleaved (array, neighbor, referenced, array, ...), and prints the
//! medians and the ratio of the median at 2,000 to the median at 1. Then it
//! pushes one message at a time to the array room until the server refuses
//! (the 16 MiB document limit); `TO_LIMIT=0` skips that part. `BATCH=1` adds
//! every message with its own write, as the seed did (slower: every push
//! rewrites the whole document).
//!
//! Run: `cargo bench --bench growth` (uses `MONGODB_URI` when set, otherwise
//! starts an embedded `secantusd-rs`).

use std::time::{Duration, Instant};

use bson::{doc, oid::ObjectId, Document as BsonDocument};
use futures_util::TryStreamExt;
use mongodb::error::{Error as DriverError, ErrorKind, WriteFailure};
use mongodb::{Collection, Database};
use schema_core::prelude::*;
use schema_core::Schema;
use schema_testkit::stats::{self, Spread};
use serde::{Deserialize, Serialize};

/// Message counts at which the tiny updates are timed.
const MARKS: [u32; 6] = [1, 100, 500, 1_000, 1_500, 2_000];
/// Bytes of text per message, as in the seed.
const TEXT_LEN: usize = 8_000;
/// Messages added one write each (and timed) just before each mark.
const SINGLE: u32 = 5;
/// The room whose document holds its messages (array model).
const ARRAY_ROOM: &str = "room1";
/// A tiny room stored in the same collection as the array room.
const NEIGHBOR_ROOM: &str = "room0";
/// The room of the referenced model.
const REFERENCED_ROOM: &str = "room2";

/// A chat room. In the referenced model its document holds no messages.
#[derive(Document, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[document(collection = "rooms")]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    last_active: i64,
}

/// One message, in its own document, pointing at its room; the compound
/// index `{roomId: 1, n: -1, _id: -1}` serves "the newest messages of a room".
#[derive(Document, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[document(collection = "roomMessages")]
struct RoomMessage {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[reference(index, to = Room, sort(n = desc))]
    room_id: String,
    n: i32,
    text: String,
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The server's error code and message, for write and command errors.
fn code_and_message(err: &DriverError) -> (Option<i32>, String) {
    match &*err.kind {
        ErrorKind::Write(WriteFailure::WriteError(e)) => (Some(e.code), e.message.clone()),
        ErrorKind::Command(e) => (Some(e.code), e.message.clone()),
        _ => (None, err.to_string()),
    }
}

/// Both models. The array model lives in a database of its own, so that the
/// referenced model's `rooms` collection never holds the big document.
struct Rooms {
    /// `rooms` of the array model: the array room and its tiny neighbor.
    array: Collection<BsonDocument>,
    /// `rooms` of the referenced model.
    referenced: Collection<BsonDocument>,
    /// `roomMessages` of the referenced model.
    messages: Collection<RoomMessage>,
    text: String,
    /// Messages added to each room so far.
    count: u32,
}

impl Rooms {
    /// Pushes the next `k` messages to the array room in one update (a plain
    /// `$push` of one message when `k` is 1, `$each` otherwise), timed.
    async fn push(&self, k: u32) -> Result<Duration, DriverError> {
        let message = |n: u32| doc! { "n": n as i32, "text": &self.text };
        let update = if k == 1 {
            doc! { "$push": { "messages": message(self.count) } }
        } else {
            let each: Vec<BsonDocument> = (self.count..self.count + k).map(message).collect();
            doc! { "$push": { "messages": { "$each": each } } }
        };
        let t = Instant::now();
        self.array
            .update_one(doc! { "_id": ARRAY_ROOM }, update)
            .await?;
        Ok(t.elapsed())
    }

    /// Inserts the next `k` messages of the referenced room (`insert_one`
    /// when `k` is 1, `insert_many` otherwise), timed.
    async fn insert(&self, k: u32) -> Duration {
        let message = |n: u32| RoomMessage {
            id: ObjectId::new(),
            room_id: REFERENCED_ROOM.to_owned(),
            n: n as i32,
            text: self.text.clone(),
        };
        let t = Instant::now();
        if k == 1 {
            self.messages
                .insert_one(message(self.count))
                .await
                .expect("insert");
        } else {
            self.messages
                .insert_many((self.count..self.count + k).map(message))
                .await
                .expect("insert");
        }
        t.elapsed()
    }

    /// Adds `k` messages to each room, one write per room, array room first.
    async fn add(&mut self, k: u32) -> (Duration, Duration) {
        let push = self.push(k).await.expect("push below the limit");
        let insert = self.insert(k).await;
        self.count += k;
        (push, insert)
    }

    /// The collection holding a room.
    fn collection(&self, room: &str) -> &Collection<BsonDocument> {
        if room == REFERENCED_ROOM {
            &self.referenced
        } else {
            &self.array
        }
    }

    /// One tiny update of a room, timed.
    async fn touch(&self, room: &str, i: i64) -> Duration {
        let t = Instant::now();
        let result = self
            .collection(room)
            .update_one(
                doc! { "_id": room },
                Room::FIELDS
                    .last_active
                    .set(&i)
                    .into_document()
                    .expect("an i64"),
            )
            .await
            .expect("tiny update");
        let elapsed = t.elapsed();
        assert_eq!(result.matched_count, 1);
        elapsed
    }

    /// `$bsonSize` of a room document, in bytes.
    async fn size(&self, room: &str) -> i64 {
        let pipeline = [
            doc! { "$match": { "_id": room } },
            doc! { "$project": { "b": { "$bsonSize": "$$ROOT" } } },
        ];
        let docs: Vec<BsonDocument> = self
            .collection(room)
            .aggregate(pipeline)
            .await
            .expect("aggregate")
            .try_collect()
            .await
            .expect("aggregate");
        match docs.first().and_then(|d| d.get("b")) {
            Some(bson::Bson::Int32(b)) => i64::from(*b),
            Some(bson::Bson::Int64(b)) => *b,
            Some(bson::Bson::Double(b)) => *b as i64,
            other => panic!("unexpected $bsonSize result: {other:?}"),
        }
    }
}

struct Row {
    messages: u32,
    array_mb: f64,
    push_ms: f64,
    insert_ms: f64,
    array: Duration,
    neighbor: Duration,
    referenced: Duration,
    /// Per-round ratios array/referenced.
    ratio: Spread,
}

/// `updates` tiny updates of each room, interleaved, after one untimed each;
/// returns the medians (array, neighbor, referenced) and the spread of the
/// per-round ratios array/referenced.
async fn tiny_updates(rooms: &Rooms, updates: usize) -> (Duration, Duration, Duration, Spread) {
    let order = [ARRAY_ROOM, NEIGHBOR_ROOM, REFERENCED_ROOM];
    for room in order {
        rooms.touch(room, -1).await;
    }
    let mut samples = [Vec::new(), Vec::new(), Vec::new()];
    for i in 0..updates as i64 {
        for (room, samples) in order.iter().zip(samples.iter_mut()) {
            samples.push(rooms.touch(room, i).await);
        }
    }
    let [a, n, r] = samples;
    let ratio = Spread::of_ratios(&a, &r);
    (
        stats::median(&a),
        stats::median(&n),
        stats::median(&r),
        ratio,
    )
}

#[tokio::main]
async fn main() {
    let updates: usize = env_or("UPDATES", 21).max(1);
    let to_limit = env_or("TO_LIMIT", 1u8) != 0;
    let batch: u32 = env_or("BATCH", 10).max(1);

    let client = schema_testkit::server::connect()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let name = format!("bench_growth_{}", std::process::id());
    let db: Database = client.database(&name);
    let array_db: Database = client.database(&format!("{name}_array"));
    db.drop().await.expect("drop");
    array_db.drop().await.expect("drop");

    let report = Schema::new()
        .with::<Room>()
        .with::<RoomMessage>()
        .sync(&db)
        .await
        .expect("setup");
    let index_names: Vec<String> = RoomMessage::indexes().into_iter().map(|i| i.name).collect();
    println!(
        "setup: {} steps applied; {} indexes: {}",
        report.applied.len(),
        RoomMessage::COLLECTION,
        index_names.join(", ")
    );

    let mut rooms = Rooms {
        array: array_db.collection(Room::COLLECTION),
        referenced: db.collection(Room::COLLECTION),
        messages: db.collection(RoomMessage::COLLECTION),
        text: "x".repeat(TEXT_LEN),
        count: 0,
    };
    rooms
        .array
        .insert_many([
            doc! { "_id": NEIGHBOR_ROOM, "lastActive": 0_i64 },
            doc! { "_id": ARRAY_ROOM, "lastActive": 0_i64, "messages": [] },
        ])
        .await
        .expect("insert array rooms");
    db.collection::<Room>(Room::COLLECTION)
        .insert_one(Room {
            id: REFERENCED_ROOM.to_owned(),
            last_active: 0,
        })
        .await
        .expect("insert referenced room");

    println!(
        "tiny `$set` on a room as {TEXT_LEN}-byte messages accumulate; medians of {updates} updates per room per mark, interleaved"
    );
    println!(
        "  messages added in batches of {batch}, the last {SINGLE} before each mark one write each (ms/push, ms/insert: their medians)"
    );
    println!("  array: the room document holds the messages (raw driver, `$push`)");
    println!("  neighbor: a tiny room in the same collection as the array room");
    println!(
        "  referenced: the framework's model, one `{}` document per message",
        RoomMessage::COLLECTION
    );
    println!("  array/ref: median of the per-round ratios array/referenced, with their p10-p90");
    println!(
        "{:>8}  {:>12}  {:>13}  {:>13}  {:>9}  {:>11}  {:>13}  {:>9}  {:>13}",
        "messages",
        "array doc MB",
        "array ms/push",
        "ref ms/insert",
        "array ms",
        "neighbor ms",
        "referenced ms",
        "array/ref",
        "p10-p90"
    );

    let mut rows: Vec<Row> = Vec::new();
    let started = Instant::now();
    for mark in MARKS {
        // Add messages up to the mark, alternating between the models: in
        // batches of `BATCH`, then the last `SINGLE` one at a time, timed.
        let singles = SINGLE.min(mark - rooms.count);
        while rooms.count < mark - singles {
            rooms.add(batch.min(mark - singles - rooms.count)).await;
        }
        let (mut pushes, mut inserts) = (Vec::new(), Vec::new());
        while rooms.count < mark {
            let (push, insert) = rooms.add(1).await;
            pushes.push(push);
            inserts.push(insert);
        }
        let (array, neighbor, referenced, ratio) = tiny_updates(&rooms, updates).await;
        let row = Row {
            messages: mark,
            array_mb: rooms.size(ARRAY_ROOM).await as f64 / 1_048_576.0,
            push_ms: ms(stats::median(&pushes)),
            insert_ms: ms(stats::median(&inserts)),
            array,
            neighbor,
            referenced,
            ratio,
        };
        println!(
            "{:>8}  {:>12.2}  {:>13.2}  {:>13.2}  {:>9.2}  {:>11.2}  {:>13.2}  {:>9.2}  {:>13}",
            row.messages,
            row.array_mb,
            row.push_ms,
            row.insert_ms,
            ms(row.array),
            ms(row.neighbor),
            ms(row.referenced),
            row.ratio.median,
            row.ratio.range()
        );
        rows.push(row);
    }

    let (first, last) = (&rows[0], &rows[rows.len() - 1]);
    let ratio = |f: fn(&Row) -> Duration| f(last).as_secs_f64() / f(first).as_secs_f64();
    println!(
        "ratio median at {} / median at {} messages: array {:.2}x, neighbor {:.2}x, referenced {:.2}x",
        last.messages,
        first.messages,
        ratio(|r| r.array),
        ratio(|r| r.neighbor),
        ratio(|r| r.referenced)
    );
    println!(
        "referenced room document: {} bytes at {} messages ({:.0} s so far)",
        rooms.size(REFERENCED_ROOM).await,
        rooms.count,
        started.elapsed().as_secs_f64()
    );

    if to_limit {
        loop {
            match rooms.push(1).await {
                Ok(_) => {
                    rooms.insert(1).await;
                    rooms.count += 1;
                }
                Err(err) => {
                    let (code, message) = code_and_message(&err);
                    println!(
                        "array room: push {} failed with code {}: {message}",
                        rooms.count + 1,
                        code.map_or("none".to_owned(), |c| c.to_string())
                    );
                    // The room is stuck: the same push fails again.
                    match rooms.push(1).await {
                        Ok(_) => println!("array room: the push after it succeeded"),
                        Err(e) => println!(
                            "array room: the push after it fails too (code {})",
                            code_and_message(&e)
                                .0
                                .map_or("none".to_owned(), |c| c.to_string())
                        ),
                    }
                    break;
                }
            }
        }
        // The referenced room takes the message the array room refused.
        rooms.insert(1).await;
        rooms.count += 1;
        let (array, neighbor, referenced, ratio) = tiny_updates(&rooms, updates).await;
        let stored = rooms
            .messages
            .count_documents(doc! { RoomMessage::FIELDS.room_id.name(): REFERENCED_ROOM })
            .await
            .expect("count");
        println!(
            "at the limit: array doc {:.2} MB; tiny update medians array {:.2} ms, neighbor {:.2} ms, referenced {:.2} ms (array/ref {ratio}); the referenced room holds {stored} messages",
            rooms.size(ARRAY_ROOM).await as f64 / 1_048_576.0,
            ms(array),
            ms(neighbor),
            ms(referenced)
        );
    }
    println!("total time: {:.0} s", started.elapsed().as_secs_f64());

    db.drop().await.expect("drop");
    array_db.drop().await.expect("drop");
}
