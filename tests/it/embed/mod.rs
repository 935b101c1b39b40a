//! Bounded embedded arrays: a push that never exceeds `max`, even with
//! concurrent pushers; push-many all or nothing; pull; and the subset
//! pattern (newest N embedded, full history in its own collection, one
//! transaction).

mod option_array_stored_as_null;
mod push_size;
mod sets;

use crate::models;
use crate::support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use bson::oid::ObjectId;
use bson::{doc, DateTime};
use models::Post;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

fn post(id: &str, tags: &[&str]) -> Post {
    Post {
        id: id.to_owned(),
        author_id: "ada".into(),
        title: "Hello".into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        at: DateTime::from_millis(1_700_000_000_000),
    }
}

async fn posts(db: &mongodb::Database) -> Repo<Post> {
    Schema::new().with::<Post>().sync(db).await.unwrap();
    Repo::<Post>::new(db)
}

#[tokio::test]
async fn a_push_into_a_full_array_fails_naming_collection_field_and_max() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "embed_full").await;
    let posts = posts(&db).await;
    posts.insert(&post("p1", &[])).await.unwrap();
    let tags = posts.embed(Post::FIELDS.tags);
    let id = "p1".to_owned();
    for i in 0..10 {
        tags.push(&id, &format!("t{i}")).await.unwrap();
    }
    let err = tags.push(&id, &"t10".to_owned()).await.unwrap_err();
    assert!(
        matches!(&err, Error::EmbedFull { collection: "posts", field: "tags", max: 10, id } if id == "p1"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "`posts.tags` of `p1` is full: it holds at most 10 items"
    );
    let stored = posts.get(&id).await.unwrap().unwrap();
    assert_eq!(stored.tags.len(), 10, "the document is unchanged");
    assert_eq!(stored.tags.last().map(String::as_str), Some("t9"));

    // A missing document is not "full".
    let err = tags
        .push(&"nope".to_owned(), &"x".to_owned())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::NotFound {
                collection: "posts",
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_bounded_push_is_one_command() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "embed_commands").await;
    let posts = posts(&db).await;
    posts.insert(&post("p1", &[])).await.unwrap();
    log.clear();
    posts
        .embed(Post::FIELDS.tags)
        .push(&"p1".to_owned(), &"rust".to_owned())
        .await
        .unwrap();
    assert_eq!(log.operations(), ["update"]);
}

#[tokio::test]
async fn push_many_is_all_or_nothing_and_pull_removes() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "embed_many").await;
    let posts = posts(&db).await;
    let id = "p1".to_owned();
    posts
        .insert(&post("p1", &["a", "b", "c", "d", "e", "f", "g", "h"]))
        .await
        .unwrap();
    let tags = posts.embed(Post::FIELDS.tags);

    let three = ["x".to_owned(), "y".to_owned(), "z".to_owned()];
    let err = tags.push_many(&id, &three).await.unwrap_err();
    assert!(matches!(err, Error::EmbedFull { max: 10, .. }), "{err:?}");
    assert_eq!(
        posts.get(&id).await.unwrap().unwrap().tags.len(),
        8,
        "none of the three"
    );

    tags.push_many(&id, &three[..2]).await.unwrap();
    assert_eq!(
        posts.get(&id).await.unwrap().unwrap().tags.len(),
        10,
        "both of the two"
    );

    let eleven: Vec<String> = (0..11).map(|i| i.to_string()).collect();
    assert!(matches!(
        tags.push_many(&id, &eleven).await,
        Err(Error::EmbedFull { .. })
    ));
    tags.push_many(&id, &[]).await.unwrap();

    tags.pull(&id, &"a".to_owned()).await.unwrap();
    tags.pull_where(&id, doc! { "$in": ["b", "c"] })
        .await
        .unwrap();
    let left = posts.get(&id).await.unwrap().unwrap().tags;
    assert_eq!(left, ["d", "e", "f", "g", "h", "x", "y"]);
    // Room again.
    tags.push(&id, &"again".to_owned()).await.unwrap();

    let err = tags
        .pull(&"nope".to_owned(), &"a".to_owned())
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
}

/// A document with one array bounded at 100.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "boards")]
struct Board {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 100)]
    items: Vec<i64>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_concurrent_pushers_never_take_the_array_past_its_max() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "embed_race").await;
    Schema::new().with::<Board>().sync(&db).await.unwrap();
    let boards = Repo::<Board>::new(&db);
    let id = "b1".to_owned();
    boards
        .insert(&Board {
            id: id.clone(),
            items: Vec::new(),
        })
        .await
        .unwrap();

    // A watcher reads the document over and over while the pushers race.
    let done = Arc::new(AtomicBool::new(false));
    let most_seen = Arc::new(AtomicUsize::new(0));
    let watcher = {
        let (boards, id, done, most_seen) =
            (boards.clone(), id.clone(), done.clone(), most_seen.clone());
        tokio::spawn(async move {
            let mut reads = 0;
            while !done.load(Ordering::SeqCst) || reads == 0 {
                let len = boards.get(&id).await.unwrap().unwrap().items.len();
                most_seen.fetch_max(len, Ordering::SeqCst);
                reads += 1;
            }
            reads
        })
    };

    let tasks: Vec<_> = (0..8)
        .map(|t| {
            let (boards, id) = (boards.clone(), id.clone());
            tokio::spawn(async move {
                let items = boards.embed(Board::FIELDS.items);
                let (mut ok, mut full) = (0, 0);
                for i in 0..50 {
                    match items.push(&id, &(t * 1000 + i)).await {
                        Ok(()) => ok += 1,
                        Err(Error::EmbedFull { max: 100, .. }) => full += 1,
                        Err(e) => panic!("unexpected error: {e}"),
                    }
                }
                (ok, full)
            })
        })
        .collect();
    let (mut ok, mut full) = (0, 0);
    for task in tasks {
        let (o, f) = task.await.unwrap();
        ok += o;
        full += f;
    }
    done.store(true, Ordering::SeqCst);
    let reads = watcher.await.unwrap();

    let items = boards.get(&id).await.unwrap().unwrap().items;
    println!(
        "pushed={ok} full={full} watcher reads={reads} most seen={}",
        most_seen.load(Ordering::SeqCst)
    );
    assert_eq!(items.len(), 100, "exactly the max");
    assert_eq!(ok, 100);
    assert_eq!(full, 300, "every other call got the full error");
    assert!(
        most_seen.load(Ordering::SeqCst) <= 100,
        "never past the max"
    );
    let mut unique = items.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 100, "each push applied once");
}

/// Seed 001's subset pattern: a room embeds its newest five messages, and
/// every message lives in `messages`.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "rooms")]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 5, keep = "newest", history = Message)]
    recent: Vec<Recent>,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Recent {
    n: i32,
    text: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "messages")]
struct Message {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[reference(index, to = Room, sort(n = desc))]
    room_id: String,
    n: i32,
    text: String,
}

#[tokio::test]
async fn the_subset_pattern_keeps_the_newest_n_and_the_full_history_in_one_transaction() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "embed_subset").await;
    Schema::new()
        .with::<Room>()
        .with::<Message>()
        .sync(&db)
        .await
        .unwrap();
    let rooms = Repo::<Room>::new(&db);
    let messages = Repo::<Message>::new(&db);
    let room = "r1".to_owned();
    rooms
        .insert(&Room {
            id: room.clone(),
            recent: Vec::new(),
        })
        .await
        .unwrap();
    let recent = rooms.embed(Room::FIELDS.recent);
    for n in 0..12 {
        let text = format!("message {n}");
        let message = Message {
            id: ObjectId::new(),
            room_id: room.clone(),
            n,
            text: text.clone(),
        };
        log.clear();
        recent
            .push_keeping(&room, &Recent { n, text }, &message)
            .await
            .unwrap();
        let ops = log.operations();
        // The first transaction of a repository asks once whether the server runs them.
        let ops: Vec<&str> = ops
            .iter()
            .map(String::as_str)
            .filter(|o| *o != "hello")
            .collect();
        assert_eq!(ops, ["update", "insert", "commitTransaction"]);
    }
    let stored = rooms.get(&room).await.unwrap().unwrap();
    let kept: Vec<i32> = stored.recent.iter().map(|r| r.n).collect();
    assert_eq!(kept, [7, 8, 9, 10, 11], "the newest five, oldest first");
    let history = messages
        .children(Message::FIELDS.room_id, &room)
        .page_size(100)
        .page()
        .await
        .unwrap();
    assert_eq!(history.items.len(), 12, "the full history");
    assert_eq!(history.items[0].n, 11, "newest first");

    // A missing parent: the transaction is aborted, no history is written.
    let orphan = Message {
        id: ObjectId::new(),
        room_id: "nope".into(),
        n: 0,
        text: "lost".into(),
    };
    let err = recent
        .push_keeping(
            &"nope".to_owned(),
            &Recent {
                n: 0,
                text: "lost".into(),
            },
            &orphan,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::NotFound {
                collection: "rooms",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        messages.count(doc! {}).scan().await.unwrap(),
        12,
        "nothing written"
    );
}

/// A line of a [`Cart`], with a bounded list of its own.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone)]
struct Line {
    sku: String,
    #[embed(max = 2)]
    notes: Vec<String>,
}

/// Bounds at two depths.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "carts")]
struct Cart {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 3)]
    lines: Vec<Line>,
}

/// An insert, an `insert_many` and a replace of a document over one of its
/// bounds, at the top or inside an item, are refused before anything is
/// sent, naming the document, the field and the bound (as a typed `set` of
/// the same array is), instead of being sent for the validator to refuse.
#[tokio::test]
async fn a_whole_document_over_a_bound_is_refused_before_sending() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "embed_whole_bound").await;
    Schema::new().with::<Cart>().sync(&db).await.unwrap();
    let carts = Repo::<Cart>::new(&db);
    let line = |notes: usize| Line {
        sku: "s".into(),
        notes: (0..notes).map(|i| i.to_string()).collect(),
    };
    let ok = Cart {
        id: "ok".into(),
        lines: vec![line(2), line(0), line(1)],
    };
    let four_lines = Cart {
        id: "four".into(),
        lines: vec![line(0), line(0), line(0), line(0)],
    };
    let deep = Cart {
        id: "deep".into(),
        lines: vec![line(1), line(3)],
    };
    log.clear();
    let over = |err: Error, id: &str, field: &str, len: u64, max: u64| match err {
        Error::OverBound {
            collection,
            id: got,
            field: f,
            len: l,
            max: m,
            ..
        } => {
            assert_eq!(
                (collection, got.as_str(), f.as_str(), l, m),
                ("carts", id, field, len, max)
            );
        }
        other => panic!("an OverBound error, not {other}"),
    };
    over(
        carts.insert(&four_lines).await.unwrap_err(),
        "four",
        "lines",
        4,
        3,
    );
    let err = carts.insert(&deep).await.unwrap_err();
    assert!(err.to_string().contains("`lines[1].notes`"), "{err}");
    over(err, "deep", "lines[1].notes", 3, 2);
    over(
        carts
            .insert_many(&[ok.clone(), deep.clone()])
            .await
            .unwrap_err(),
        "deep",
        "lines[1].notes",
        3,
        2,
    );
    assert_eq!(log.operations(), Vec::<String>::new(), "nothing sent");
    carts.insert(&ok).await.unwrap();
    let mut grown = ok.clone();
    grown.lines.push(line(0));
    log.clear();
    over(
        carts.replace(&grown).await.unwrap_err(),
        "ok",
        "lines",
        4,
        3,
    );
    assert_eq!(log.operations(), Vec::<String>::new(), "nothing sent");
    assert_eq!(
        carts
            .get(&"ok".to_owned())
            .await
            .unwrap()
            .unwrap()
            .lines
            .len(),
        3
    );
}
