//! An array whose length grows with its documents' age is flagged though
//! it is short: older documents hold more, so it has no bound but time.
//! Age from an ObjectId `_id`'s time, or from a date field.

use mongodb::bson::{doc, oid::ObjectId, DateTime, Document};
use schema_core::{audit, AuditOptions, GROWING_RHO};

use crate::adopt::seeds::EPOCH_MS;
use crate::support;

/// 40 rooms created a day apart: room `k` holds `50 - k` messages (older,
/// longer) in `rooms`, 40 - k % 7 items in `carts` (no relation to age).
fn rooms() -> (Vec<Document>, Vec<Document>) {
    let day = 86_400u32;
    let start = (EPOCH_MS / 1000) as u32;
    let oid =
        |k: u32, c: u8| ObjectId::from_parts(start + k * day, [1, 2, 3, 4, 5], [0, c, k as u8]);
    let rooms = (0..40u32)
        .map(|k| doc! { "_id": oid(k, 0), "messages": (0..50 - k as i32).collect::<Vec<i32>>() })
        .collect();
    let carts = (0..40u32)
        .map(|k| doc! { "_id": oid(k, 1), "items": (0..(40 - k % 7) as i32).collect::<Vec<i32>>() })
        .collect();
    (rooms, carts)
}

#[tokio::test]
async fn an_array_growing_with_age_is_flagged_below_the_long_threshold() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "audit_growth").await;
    let (rooms, carts) = rooms();
    db.collection::<Document>("rooms")
        .insert_many(rooms)
        .await
        .unwrap();
    db.collection::<Document>("carts")
        .insert_many(carts)
        .await
        .unwrap();
    // Posts aged by their date field, not their string `_id`: the newest
    // hold the most comments (shrinking with age: not flagged), threads the
    // oldest.
    let at = |k: i64| DateTime::from_millis(EPOCH_MS + k * 3_600_000);
    let posts: Vec<Document> = (0..35i64)
        .map(|k| doc! { "_id": format!("p{k}"), "at": at(k), "comments": (0..k).collect::<Vec<i64>>() })
        .collect();
    db.collection::<Document>("posts")
        .insert_many(posts)
        .await
        .unwrap();
    let threads: Vec<Document> = (0..35i64)
        .map(|k| doc! { "_id": format!("t{k}"), "at": at(k), "replies": (0..35 - k).collect::<Vec<i64>>() })
        .collect();
    db.collection::<Document>("threads")
        .insert_many(threads)
        .await
        .unwrap();

    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    let flagged: Vec<String> = report
        .unbounded()
        .map(|a| format!("{}.{}", a.collection, a.path))
        .collect();
    assert_eq!(flagged, ["rooms.messages", "threads.replies"], "{report}");
    let array = |c: &str| {
        report
            .collections
            .iter()
            .find(|x| x.name == c)
            .unwrap()
            .arrays[0]
            .clone()
    };
    let messages = array("rooms");
    assert_eq!(messages.max, 50);
    let growth = messages.growth.clone().unwrap();
    assert!((growth.rho - 1.0).abs() < 1e-9, "{growth:?}");
    assert_eq!((growth.pairs, growth.age_from.as_str()), (40, "_id"));
    let why = messages.unbounded.unwrap();
    assert!(
        why.contains("grows with the document's age")
            && why.contains("#[embed(max = N)]")
            && why.contains("#[reference(index)]"),
        "{why}"
    );
    let replies = array("threads").growth.unwrap();
    assert_eq!((replies.pairs, replies.age_from.as_str()), (35, "at"));
    assert!(replies.is_growing());
    let comments = array("posts").growth.unwrap();
    assert!(
        comments.rho < -0.99 && !comments.is_growing(),
        "{comments:?}"
    );
    let items = array("carts").growth.unwrap();
    assert!(items.rho < GROWING_RHO, "{items:?}");
    assert!(report.has_findings());
}
