//! Set-typed embeds (`BTreeSet`, `HashSet` with `#[embed(max = N)]`) keep set
//! semantics on the server: a push is an `$addToSet` whose guard counts only
//! the items the set does not hold yet, so an item already held stores no
//! duplicate, does not count against `max`, and succeeds without changing
//! anything even when the set is full.

use crate::support;

use std::collections::{BTreeSet, HashSet};

use bson::{doc, Bson, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "boards")]
struct Board {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 5)]
    labels: BTreeSet<String>,
    #[embed(max = 5)]
    members: HashSet<i32>,
    #[embed(max = 3)]
    corners: Option<BTreeSet<Point>>,
    #[embed(max = 3, keep = "newest", history = LabelEvent)]
    recent: BTreeSet<String>,
    #[embed(max = 2)]
    segments: BTreeSet<[i32; 2]>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "labelEvents")]
struct LabelEvent {
    #[serde(rename = "_id")]
    id: String,
    label: String,
}

fn board(id: &str) -> Board {
    Board {
        id: id.to_owned(),
        labels: BTreeSet::new(),
        members: HashSet::new(),
        corners: None,
        recent: BTreeSet::new(),
        segments: BTreeSet::new(),
    }
}

async fn boards(db: &mongodb::Database) -> Repo<Board> {
    Schema::new()
        .with::<Board>()
        .with::<LabelEvent>()
        .sync(db)
        .await
        .unwrap();
    Repo::<Board>::new(db)
}

/// The array as stored, read with the raw driver (a `BTreeSet` read back
/// through the model would hide a stored duplicate).
async fn stored(db: &mongodb::Database, id: &str, field: &str) -> Vec<Bson> {
    let doc = db
        .collection::<BsonDocument>("boards")
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap();
    match doc.get(field) {
        Some(Bson::Array(items)) => items.clone(),
        other => panic!("{field}: {other:?}"),
    }
}

fn strings(items: &[Bson]) -> Vec<&str> {
    items.iter().map(|b| b.as_str().unwrap()).collect()
}

fn s(v: &str) -> String {
    v.to_owned()
}

#[tokio::test]
async fn an_item_already_held_is_not_stored_twice_nor_counted_nor_full() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "set_held").await;
    let boards = boards(&db).await;
    boards.insert(&board("b1")).await.unwrap();
    let id = s("b1");
    let labels = boards.embed(Board::FIELDS.labels);

    for label in ["a", "b", "c"] {
        labels.push(&id, &s(label)).await.unwrap();
    }
    labels.push(&id, &s("a")).await.unwrap();
    assert_eq!(strings(&stored(&db, "b1", "labels").await), ["a", "b", "c"]);

    // Held items do not count against max: two more fit, to exactly 5.
    labels.push(&id, &s("b")).await.unwrap();
    labels.push(&id, &s("d")).await.unwrap();
    labels.push(&id, &s("e")).await.unwrap();
    assert_eq!(
        strings(&stored(&db, "b1", "labels").await),
        ["a", "b", "c", "d", "e"]
    );

    // Full, and already holding the item: a success that changes nothing.
    labels.push(&id, &s("c")).await.unwrap();
    // Full, and a new item: refused, unchanged.
    let err = labels.push(&id, &s("f")).await.unwrap_err();
    assert!(
        matches!(&err, Error::EmbedFull { collection: "boards", field: "labels", max: 5, id } if id == "b1"),
        "{err:?}"
    );
    assert_eq!(
        strings(&stored(&db, "b1", "labels").await),
        ["a", "b", "c", "d", "e"]
    );

    // A missing document is still not "full", held item or not.
    let err = labels.push(&s("nope"), &s("a")).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
}

#[tokio::test]
async fn push_many_needs_room_only_for_the_items_not_held() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "set_many").await;
    let boards = boards(&db).await;
    let mut b = board("b1");
    b.labels = ["a", "b", "c", "d"].map(s).into();
    boards.insert(&b).await.unwrap();
    let id = s("b1");
    let labels = boards.embed(Board::FIELDS.labels);

    // Two held, one new: fits in the one place left.
    labels
        .push_many(&id, &[s("a"), s("e"), s("b")])
        .await
        .unwrap();
    assert_eq!(
        strings(&stored(&db, "b1", "labels").await),
        ["a", "b", "c", "d", "e"]
    );
    // All held, set full: success, nothing changes.
    labels.push_many(&id, &[s("e"), s("a")]).await.unwrap();
    // One held, one new, set full: all or nothing, so nothing.
    let err = labels.push_many(&id, &[s("a"), s("f")]).await.unwrap_err();
    assert!(matches!(err, Error::EmbedFull { max: 5, .. }), "{err:?}");
    assert_eq!(stored(&db, "b1", "labels").await.len(), 5);

    // More items than max, but only two distinct: not refused up front.
    boards.insert(&board("b2")).await.unwrap();
    let repeated: Vec<String> = (0..12).map(|i| s(["x", "y"][i % 2])).collect();
    labels.push_many(&s("b2"), &repeated).await.unwrap();
    assert_eq!(strings(&stored(&db, "b2", "labels").await), ["x", "y"]);
    // Six distinct can never fit in five: refused before sending.
    let six: Vec<String> = (0..6).map(|i| i.to_string()).collect();
    assert!(matches!(
        labels.push_many(&s("b2"), &six).await,
        Err(Error::EmbedFull { .. })
    ));
}

#[tokio::test]
async fn sets_of_documents_arrays_optional_sets_and_operator_like_items_keep_set_semantics() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "set_kinds").await;
    let boards = boards(&db).await;
    boards.insert(&board("b1")).await.unwrap();
    let id = s("b1");

    // An `Option<BTreeSet<Point>>` stored as null: the first push makes it a set.
    assert_eq!(
        db.collection::<BsonDocument>("boards")
            .find_one(doc! { "_id": "b1", "corners": Bson::Null })
            .await
            .unwrap()
            .map(|_| ()),
        Some(())
    );
    let corners = boards.embed(Board::FIELDS.corners);
    let p = |x, y| Point { x, y };
    corners.push(&id, &p(0, 0)).await.unwrap();
    corners.push(&id, &p(0, 0)).await.unwrap();
    corners
        .push_many(&id, &[p(1, 0), p(0, 0), p(1, 1)])
        .await
        .unwrap();
    // Full, already held (a document, compared whole): success.
    corners.push(&id, &p(1, 1)).await.unwrap();
    assert!(matches!(
        corners.push(&id, &p(2, 2)).await,
        Err(Error::EmbedFull { max: 3, .. })
    ));
    assert_eq!(
        stored(&db, "b1", "corners").await,
        vec![
            Bson::Document(doc! { "x": 0, "y": 0 }),
            Bson::Document(doc! { "x": 1, "y": 0 }),
            Bson::Document(doc! { "x": 1, "y": 1 }),
        ]
    );

    // Items that are arrays themselves: compared whole, not element-wise.
    let segments = boards.embed(Board::FIELDS.segments);
    segments.push(&id, &[1, 2]).await.unwrap();
    segments.push_many(&id, &[[1, 2], [2, 1]]).await.unwrap();
    segments.push(&id, &[2, 1]).await.unwrap();
    assert!(matches!(
        segments.push(&id, &[1, 1]).await,
        Err(Error::EmbedFull { max: 2, .. })
    ));
    assert_eq!(
        stored(&db, "b1", "segments").await,
        vec![Bson::from(vec![1, 2]), Bson::from(vec![2, 1])]
    );

    // Strings a careless layer would read as operators or field paths.
    let labels = boards.embed(Board::FIELDS.labels);
    for tricky in ["$labels", "$gt", "$literal", "a.b", "$labels"] {
        labels.push(&id, &s(tricky)).await.unwrap();
    }
    assert_eq!(
        strings(&stored(&db, "b1", "labels").await),
        ["$labels", "$gt", "$literal", "a.b"]
    );
    assert_eq!(
        boards.get(&id).await.unwrap().unwrap().labels,
        ["$labels", "$gt", "$literal", "a.b"].map(s).into()
    );
}

#[tokio::test]
async fn the_subset_pattern_on_a_set_keeps_one_copy_and_still_records_history() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "set_subset").await;
    let boards = boards(&db).await;
    boards.insert(&board("b1")).await.unwrap();
    let id = s("b1");
    let recent = boards.embed(Board::FIELDS.recent);
    let event = |n: u32, label: &str| LabelEvent {
        id: format!("e{n}"),
        label: s(label),
    };
    for (n, label) in ["a", "b", "a", "c", "d"].into_iter().enumerate() {
        recent
            .push_keeping(&id, &s(label), &event(n as u32, label))
            .await
            .unwrap();
    }
    // The newest three distinct; "a" was held when pushed again, so it kept
    // its place and left with the oldest.
    assert_eq!(strings(&stored(&db, "b1", "recent").await), ["b", "c", "d"]);
    assert_eq!(
        Repo::<LabelEvent>::new(&db)
            .count(doc! {})
            .scan()
            .await
            .unwrap(),
        5,
        "every push is in the history"
    );
    let err = recent
        .push_keeping(&s("nope"), &s("a"), &event(9, "a"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    assert_eq!(
        Repo::<LabelEvent>::new(&db)
            .count(doc! {})
            .scan()
            .await
            .unwrap(),
        5
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_pushers_of_overlapping_items_end_at_exactly_max_distinct_items() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "set_race").await;
    let boards = boards(&db).await;
    let id = s("b1");
    boards.insert(&board("b1")).await.unwrap();

    // Eight pushers over twelve items, four starting at 0 and four at 6, so
    // every item is pushed by four of them at once, held or not.
    let tasks: Vec<_> = (0..8)
        .map(|t| {
            let (boards, id) = (boards.clone(), id.clone());
            tokio::spawn(async move {
                let members = boards.embed(Board::FIELDS.members);
                let mut results = Vec::new();
                for i in 0..12 {
                    let item = (t % 2 * 6 + i) % 12;
                    match members.push(&id, &item).await {
                        Ok(()) => results.push((item, true)),
                        Err(Error::EmbedFull { max: 5, .. }) => results.push((item, false)),
                        Err(e) => panic!("unexpected error: {e}"),
                    }
                }
                results
            })
        })
        .collect();
    let mut accepted = BTreeSet::new();
    let mut refused = 0;
    for task in tasks {
        for (item, ok) in task.await.unwrap() {
            if ok {
                accepted.insert(item);
            } else {
                refused += 1;
            }
        }
    }

    let items: Vec<i32> = stored(&db, "b1", "members")
        .await
        .iter()
        .map(|b| b.as_i32().unwrap())
        .collect();
    let distinct: BTreeSet<i32> = items.iter().copied().collect();
    assert_eq!(items.len(), 5, "exactly max: {items:?}");
    assert_eq!(distinct.len(), 5, "no duplicates: {items:?}");
    // Everything stored was accepted; a push accepted for an item not
    // stored would be a lie (held items are accepted, and stay stored).
    assert_eq!(distinct, accepted, "accepted = stored");
    assert!(refused > 0, "twelve items cannot all fit in five");
    println!("stored {items:?}, {refused} pushes refused as full");
}
