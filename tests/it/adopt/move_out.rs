//! Moving seed 000's stuck room's messages out into a collection of their
//! own while the application runs: every message once, in order, read from
//! wherever it is during the move; the room tiny afterwards and its newest
//! 20 messages a 20-key index read; a move stopped between batches
//! resumed; an item that does not make a child stopping the move with
//! nothing of its batch written and nothing of what it holds in the error.

use mongodb::bson::{doc, oid::ObjectId, Document as BsonDocument};
use mongodb::Database;
use schema_core::prelude::*;
use schema_core::{Error, MoveOptions, Schema};

use super::seeds::{self, pad, STUCK_MESSAGES};
use crate::models::moved::{Message, MESSAGES};
use crate::support;

/// The stuck room (and 30 small rooms), the messages' index created.
async fn stuck(test: &str) -> Database {
    let client = support::client().await;
    let db = support::fresh_db(&client, test).await;
    seeds::stuck_room(&db, 30).await;
    Schema::new().with::<Message>().sync(&db).await.unwrap();
    db
}

/// The size of a room as stored, in bytes.
async fn room_size(db: &Database, id: &str) -> i64 {
    let rows: Vec<BsonDocument> = db
        .collection::<BsonDocument>("rooms")
        .aggregate([
            doc! { "$match": { "_id": id } },
            doc! { "$project": { "size": { "$bsonSize": "$$ROOT" } } },
        ])
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    rows[0]
        .get_i64("size")
        .or_else(|_| rows[0].get_i32("size").map(i64::from))
        .unwrap()
}

use futures_util::TryStreamExt;

/// The `n`s of `messages`, checked to hold the stuck room's text.
fn ns(messages: &[Message]) -> Vec<i32> {
    for m in messages {
        assert_eq!(m.room, "room1");
        if m.n < STUCK_MESSAGES {
            assert_eq!(m.text, pad(), "message {}", m.n);
        }
    }
    messages.iter().map(|m| m.n).collect()
}

#[tokio::test]
async fn the_stuck_room_moves_out_with_every_message_once_in_order() {
    let db = stuck("move_out").await;
    let rooms = db.collection::<BsonDocument>("rooms");
    // Stuck: one more push is over 16 MiB.
    let push = rooms
        .update_one(
            doc! { "_id": "room1" },
            doc! { "$push": { "messages": { "n": STUCK_MESSAGES, "text": pad() } } },
        )
        .await
        .unwrap_err();
    assert!(push.to_string().contains("16777216"), "{push}");
    let before = room_size(&db, "room1").await;

    let reads = MESSAGES.reads(&db);
    let all: Vec<i32> = (0..STUCK_MESSAGES).collect();
    assert_eq!(ns(&reads.items(&"room1".into()).await.unwrap()), all);

    let mut seen = Vec::new();
    let done = MESSAGES
        .run(&db, MoveOptions::default(), |p| seen.push(p.clone()))
        .await
        .unwrap();
    let small: u64 = (0..30u64).map(|r| r % 10).sum();
    assert!(done.finished);
    assert_eq!(done.moved, STUCK_MESSAGES as u64 + small);
    // Every room left without its array: 31, the small rooms in one batch
    // each (the 3 empty ones too: their array is unset).
    assert_eq!(done.emptied, 31);
    // 21 batches of at most 100 for the stuck room, 1 for each small one;
    // more when the server refused a batch as too large for its cache
    // (code 388: the share of the cache a transaction gets is what the
    // other writes on the server leave it, so a loaded server halves
    // batches), never one of more than 100 items.
    assert!(done.batches >= 21 + 30, "{done:?}");
    let sizes: Vec<u64> = seen
        .windows(2)
        .map(|w| w[1].moved - w[0].moved)
        .chain(seen.first().map(|p| p.moved))
        .collect();
    assert!(sizes.iter().all(|&n| n <= 100), "{sizes:?}");
    assert_eq!(seen.last(), Some(&done));

    // Every message once, in order, in the children; the room tiny.
    assert_eq!(ns(&reads.items(&"room1".into()).await.unwrap()), all);
    let children = db.collection::<BsonDocument>("roomMessages");
    assert_eq!(
        children
            .count_documents(doc! { "room": "room1" })
            .await
            .unwrap(),
        STUCK_MESSAGES as u64
    );
    let after = room_size(&db, "room1").await;
    assert!(after < 64, "the room is {after} bytes after the move");
    println!("room1: {before} bytes before the move, {after} after");
    for r in 0..30 {
        let room = format!("room_{r}");
        let items = reads.items(&room).await.unwrap();
        assert_eq!(
            items.iter().map(|m| m.n).collect::<Vec<_>>(),
            (0..r % 10).collect::<Vec<_>>()
        );
        assert!(items.iter().all(|m| m.text == format!("hello {}", m.n)));
    }

    // The newest 20: a 20-key index read.
    let plan = reads.explain_newest(&"room1".into(), 20).await.unwrap();
    println!("newest 20 of room1: {plan}");
    assert_eq!(plan.keys_examined, 20, "{plan}");
    assert_eq!(plan.returned, 20, "{plan}");
    assert!(
        plan.shape().contains("IXSCAN(room_1_n_-1__id_-1)"),
        "{plan}"
    );
    assert!(!plan.sorts_in_memory() && !plan.is_collscan(), "{plan}");
    let newest = reads.newest(&"room1".into(), 20).await.unwrap();
    assert_eq!(
        ns(&newest),
        (STUCK_MESSAGES - 20..STUCK_MESSAGES)
            .rev()
            .collect::<Vec<_>>()
    );

    // A new message is a plain insert.
    let message = Message {
        id: ObjectId::new(),
        room: "room1".into(),
        n: STUCK_MESSAGES,
        text: "the first message past the old limit".into(),
    };
    Repo::<Message>::new(&db).insert(&message).await.unwrap();
    assert_eq!(
        reads.newest(&"room1".into(), 1).await.unwrap(),
        vec![message]
    );

    // Run again: nothing left.
    let again = MESSAGES
        .run(&db, MoveOptions::default(), |_| {})
        .await
        .unwrap();
    assert_eq!((again.moved, again.batches, again.finished), (0, 0, true));
}

#[tokio::test]
async fn a_move_stopped_between_batches_resumes_and_reads_see_each_message_once() {
    let db = stuck("move_out_resume").await;
    let reads = MESSAGES.reads(&db);
    let messages = Repo::<Message>::new(&db);
    let options = MoveOptions {
        batch_size: 50,
        max_batches: Some(7),
        ..MoveOptions::default()
    };
    let mut expected: Vec<i32> = (0..STUCK_MESSAGES).collect();
    let mut next = STUCK_MESSAGES;
    let mut runs = 0;
    loop {
        let run = MESSAGES.run(&db, options, |_| {}).await.unwrap();
        runs += 1;
        // Between runs: half moved, half still in the room, a new message
        // in the children; each read once, in order.
        let items = reads.items(&"room1".into()).await.unwrap();
        assert_eq!(ns(&items), expected, "after run {runs}");
        let newest = reads.newest(&"room1".into(), 20).await.unwrap();
        let tail: Vec<i32> = expected.iter().rev().take(20).copied().collect();
        assert_eq!(ns(&newest), tail, "after run {runs}");
        if run.finished {
            break;
        }
        assert_eq!(run.batches, 7);
        let m = Message {
            id: ObjectId::new(),
            room: "room1".into(),
            n: next,
            text: format!("new {next}"),
        };
        messages.insert(&m).await.unwrap();
        expected.push(next);
        next += 1;
    }
    // 2,089 messages in batches of 50 (42 batches, more when the server
    // refused one as too large for its cache and it was split) and the 30
    // small rooms, 7 batches a run.
    assert!(runs >= (42 + 30 + 6) / 7, "{runs} runs");
    let left = db
        .collection::<BsonDocument>("rooms")
        .count_documents(doc! { "messages": { "$exists": true } })
        .await
        .unwrap();
    assert_eq!(left, 0);
    assert_eq!(
        messages
            .children(Message::FIELDS.room, &"room1".to_owned())
            .count()
            .await
            .unwrap(),
        expected.len() as u64
    );
}

#[tokio::test]
async fn an_item_that_does_not_decode_stops_the_move_with_nothing_written() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "move_out_bad").await;
    Schema::new().with::<Message>().sync(&db).await.unwrap();
    let mut items: Vec<BsonDocument> = (0..10).map(|n| doc! { "n": n, "text": pad() }).collect();
    items[7] = doc! { "n": "secret-stored-value", "text": "secret-stored-text" };
    let rooms = db.collection::<BsonDocument>("rooms");
    rooms
        .insert_one(doc! { "_id": "bad", "messages": items.clone() })
        .await
        .unwrap();

    let err = MESSAGES
        .run(&db, MoveOptions::default(), |_| {})
        .await
        .unwrap_err();
    let text = err.to_string();
    println!("{text}");
    match &err {
        Error::Decode {
            id,
            field,
            collection,
            ..
        } => {
            assert_eq!((id.as_str(), *collection), ("bad", "rooms"));
            assert_eq!(field.as_deref(), Some("messages.7"));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        text.contains("`bad`") && text.contains("messages.7"),
        "{text}"
    );
    assert!(
        !text.contains("secret") && !format!("{err:?}").contains("secret"),
        "{text}"
    );
    // Nothing written: the room as it was, no child.
    let room = rooms
        .find_one(doc! { "_id": "bad" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(room.get_array("messages").unwrap().len(), 10);
    let children = db.collection::<BsonDocument>("roomMessages");
    assert_eq!(children.count_documents(doc! {}).await.unwrap(), 0);
    // Reads name it the same way.
    let read = MESSAGES.reads(&db).items(&"bad".into()).await.unwrap_err();
    assert!(read.to_string().contains("messages.7"), "{read}");
}
