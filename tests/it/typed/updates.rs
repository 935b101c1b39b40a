//! Typed updates against the real server: every operator stores what it
//! says; a push into a bounded array inside a composed update carries the
//! bounded push's guard, so a full array refuses the whole update with
//! `EmbedFull` and nothing written; bad updates send nothing.

use crate::support;

use std::collections::BTreeSet;

use bson::{doc, DateTime};
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Stats {
    #[serde(rename = "hi")]
    high: i32,
    #[embed(max = 2)]
    marks: Vec<i32>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "items")]
struct Item {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    stock: i32,
    price: f64,
    low: Option<i32>,
    note: Option<String>,
    #[serde(rename = "seenAt")]
    seen_at: Option<DateTime>,
    #[embed(max = 3)]
    tags: Vec<String>,
    #[embed(max = 2)]
    labels: BTreeSet<String>,
    #[embed(max = 2)]
    maybe: Option<Vec<i32>>,
    stats: Stats,
    visits: u64,
}

fn item(id: &str) -> Item {
    Item {
        id: id.to_owned(),
        title: "t".to_owned(),
        stock: 10,
        price: 2.5,
        low: Some(4),
        note: Some("n".to_owned()),
        seen_at: None,
        tags: vec!["a".to_owned()],
        labels: BTreeSet::new(),
        maybe: None,
        stats: Stats {
            high: 5,
            marks: vec![],
        },
        visits: 0,
    }
}

async fn setup(test: &str) -> (Repo<Item>, support::CommandLog) {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, test).await;
    Schema::new().with::<Item>().sync(&db).await.unwrap();
    (Repo::<Item>::new(&db), log)
}

async fn get(repo: &Repo<Item>, id: &str) -> Item {
    repo.get(&id.to_owned()).await.unwrap().unwrap()
}

fn s(v: &str) -> String {
    v.to_owned()
}

#[tokio::test]
async fn every_operator_stores_what_it_says() {
    let (repo, log) = setup("typed_updates_ops").await;
    repo.insert(&item("i1")).await.unwrap();
    let f = Item::FIELDS;
    let id = s("i1");
    let before = DateTime::now();

    log.clear();
    let composed = f.title.set("new")
        & f.stock.inc(&-3)
        & f.price.mul(&2.0)
        & f.low.min(&2)
        & f.stats.high.max(&9)
        & f.note.unset()
        & f.seen_at.current_date()
        & f.visits.set(&7);
    assert!(repo.update(&id, composed).await.unwrap());
    assert_eq!(log.operations(), ["update"], "one update document");
    let after = get(&repo, "i1").await;
    let mut expected = item("i1");
    expected.title = s("new");
    expected.stock = 7;
    expected.price = 5.0;
    expected.low = Some(2);
    expected.stats.high = 9;
    expected.note = None;
    expected.visits = 7;
    expected.seen_at = after.seen_at;
    assert_eq!(after, expected);
    let seen = after.seen_at.expect("$currentDate set the date");
    assert!(seen.timestamp_millis() >= before.timestamp_millis() - 1_000);

    // `min`/`max` leave a value that is already lower/higher.
    repo.update(&id, f.low.min(&3) & f.stats.high.max(&1))
        .await
        .unwrap();
    let again = get(&repo, "i1").await;
    assert_eq!((again.low, again.stats.high), (Some(2), 9));

    // An `Option<T>` field is set with a `T`, and with `None`.
    repo.update(&id, f.low.set(&8)).await.unwrap();
    assert_eq!(get(&repo, "i1").await.low, Some(8));
    repo.update(&id, f.low.set(&None)).await.unwrap();
    assert_eq!(get(&repo, "i1").await.low, None);

    // A missing document: `false`, as before.
    assert!(!repo.update(&s("nope"), f.stock.inc(&1)).await.unwrap());
}

#[tokio::test]
async fn a_push_in_a_composed_update_keeps_the_bound() {
    let (repo, log) = setup("typed_updates_push").await;
    repo.insert(&item("i1")).await.unwrap();
    let f = Item::FIELDS;
    let id = s("i1");

    // Room for two more tags (max 3, one held).
    repo.update(&id, f.tags.push(&s("b")) & f.stock.inc(&1))
        .await
        .unwrap();
    repo.update(&id, f.tags.push(&s("c")) & f.stock.inc(&1))
        .await
        .unwrap();
    let full = get(&repo, "i1").await;
    assert_eq!(full.tags, ["a", "b", "c"]);
    assert_eq!(full.stock, 12);

    // Full: the whole update is refused, nothing written, the typed error.
    log.clear();
    let err = repo
        .update(
            &id,
            f.tags.push(&s("d")) & f.stock.inc(&1) & f.title.set("x"),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::EmbedFull { field: "tags", max: 3, id, .. } if id.contains("i1")
        ),
        "{err:?}"
    );
    assert_eq!(log.operations(), ["update", "find"]);
    assert_eq!(get(&repo, "i1").await, full, "nothing written");

    // The same error as the bounded push helper.
    let helper = repo.embed(f.tags).push(&id, &s("d")).await.unwrap_err();
    assert_eq!(helper.to_string(), err.to_string());

    // Two pushes into one array are one push: both need room.
    repo.insert(&item("i2")).await.unwrap();
    let id2 = s("i2");
    let err = repo
        .update(
            &id2,
            f.tags.push(&s("x")) & f.tags.push_all(&[s("y"), s("z")]),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::EmbedFull { .. }), "{err:?}");
    assert_eq!(get(&repo, "i2").await.tags, ["a"]);
    repo.update(&id2, f.tags.push(&s("x")) & f.tags.push(&s("y")))
        .await
        .unwrap();
    assert_eq!(get(&repo, "i2").await.tags, ["a", "x", "y"]);

    // More items than the bound: refused before anything is sent.
    log.clear();
    let err = repo
        .update(&id2, f.tags.push_all(&[s("1"), s("2"), s("3"), s("4")]))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::EmbedFull { .. }), "{err:?}");
    assert_eq!(log.operations(), Vec::<String>::new());

    // A missing document: `false`, not full.
    assert!(!repo.update(&s("nope"), f.tags.push(&s("q"))).await.unwrap());
}

#[tokio::test]
async fn set_pushes_use_add_to_set_with_the_set_guard() {
    let (repo, _log) = setup("typed_updates_set").await;
    repo.insert(&item("i1")).await.unwrap();
    let f = Item::FIELDS;
    let id = s("i1");
    repo.update(&id, f.labels.push(&s("red"))).await.unwrap();
    repo.update(&id, f.labels.push(&s("blue"))).await.unwrap();
    // Full, but an item already held adds nothing and succeeds.
    assert!(repo
        .update(&id, f.labels.push(&s("red")) & f.stock.inc(&1))
        .await
        .unwrap());
    let held = get(&repo, "i1").await;
    assert_eq!(held.labels.len(), 2);
    assert_eq!(held.stock, 11);
    // A new item does not fit: nothing written.
    let err = repo
        .update(&id, f.labels.push(&s("green")) & f.stock.inc(&1))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::EmbedFull {
                field: "labels",
                max: 2,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(get(&repo, "i1").await, held);
}

#[tokio::test]
async fn nested_and_nullable_arrays_are_guarded_too() {
    let (repo, _log) = setup("typed_updates_nested").await;
    repo.insert(&item("i1")).await.unwrap();
    let f = Item::FIELDS;
    let id = s("i1");

    // An array inside a sub-document: its own bound, below its path.
    repo.update(&id, f.stats.marks.push(&1)).await.unwrap();
    repo.update(&id, f.stats.marks.push(&2)).await.unwrap();
    let err = repo.update(&id, f.stats.marks.push(&3)).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::EmbedFull {
                field: "stats.marks",
                max: 2,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(get(&repo, "i1").await.stats.marks, [1, 2]);

    // An `Option` array stored as null starts empty.
    repo.update(&id, f.maybe.push(&7)).await.unwrap();
    assert_eq!(get(&repo, "i1").await.maybe, Some(vec![7]));
}

#[tokio::test]
async fn bad_updates_send_nothing() {
    let (repo, log) = setup("typed_updates_bad").await;
    let f = Item::FIELDS;
    let id = s("i1");
    log.clear();
    // No BSON form.
    let err = repo
        .update(&id, f.stock.inc(&1) & f.visits.set(&u64::MAX))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Serialize { field: Some(field), .. } if field == "visits"),
        "{err:?}"
    );
    // One path twice, or a path and a path inside it.
    let err = repo
        .update(&id, f.stock.inc(&1) & f.stock.set(&0))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("`stock`"), "{err}");
    let err = repo
        .update(&id, f.stats.set(&item("x").stats) & f.stats.high.inc(&1))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("`stats.hi`"), "{err}");
    // A whole bounded array over its bound.
    let err = repo
        .update(&id, f.tags.set(&vec![s("1"), s("2"), s("3"), s("4")]))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("at most 3"), "{err}");
    assert_eq!(log.operations(), Vec::<String>::new(), "nothing was sent");

    // A raw update document is still accepted as it is.
    repo.insert(&item("i1")).await.unwrap();
    assert!(repo
        .update(&id, doc! { "$set": { "stock": 1 } })
        .await
        .unwrap());
    assert_eq!(get(&repo, "i1").await.stock, 1);
}

#[test]
fn a_guarded_update_has_no_guardless_document() {
    let f = Item::FIELDS;
    let err = f.tags.push(&s("a")).into_document().unwrap_err();
    assert!(err.to_string().contains("`tags`"), "{err}");
    let parts = (f.tags.push(&s("a")) & f.stock.inc(&1))
        .into_parts()
        .unwrap();
    assert_eq!(parts.guard, doc! { "tags.2": { "$exists": false } });
    assert_eq!(
        parts.update,
        doc! { "$inc": { "stock": 1 }, "$push": { "tags": "a" } }
    );
    // Pushing no items is nothing; an update of nothing at all is an error.
    let parts = (f.tags.push_all(&[]) & f.stock.inc(&1))
        .into_parts()
        .unwrap();
    assert_eq!(parts.guard, doc! {});
    let err = f.tags.push_all(&[]).into_parts().unwrap_err();
    assert!(err.to_string().contains("changes nothing"), "{err}");
}
