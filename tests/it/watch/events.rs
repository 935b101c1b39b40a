//! Every kind of event, read as the model.

use bson::doc;
use schema_core::prelude::*;
use schema_core::{Change, ChangeError, Error, LostBecause, VERSION_FIELD};

use super::{event, next, order, Order, Parcel};
use crate::support;

#[tokio::test]
async fn every_kind_of_change_is_read_as_the_model() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "watch_kinds").await;
    let orders = Repo::<Order>::new(&db);
    let mut changes = orders.watch().full_document_on_update().await.unwrap();
    assert_eq!(changes.opens(), 1);

    let first = order("o1", "new", 2);
    orders.insert(&first).await.unwrap();
    let inserted = event(&mut changes).await;
    assert!(inserted.cluster_time.is_some() && inserted.wall_time.is_some());
    match inserted.change {
        Change::Insert(o) => assert_eq!(o, first),
        other => panic!("{other:?}"),
    }
    assert_eq!(changes.resume_token(), Some(inserted.token.clone()));

    orders
        .update(&"o1".to_owned(), Order::FIELDS.status.set("paid"))
        .await
        .unwrap();
    match event(&mut changes).await.change {
        Change::Update {
            id,
            changed,
            removed,
            full,
            ..
        } => {
            assert_eq!(id, "o1");
            assert_eq!(changed, doc! { "status": "paid" });
            assert!(removed.is_empty());
            assert_eq!(full, Some(order("o1", "paid", 2)));
        }
        other => panic!("{other:?}"),
    }
    // A field outside the model set, then removed (by writes that bypassed
    // it): named by their stored paths.
    let raw = db.collection::<bson::Document>("watched_orders");
    raw.update_one(doc! { "_id": "o1" }, doc! { "$set": { "extra": 1 } })
        .await
        .unwrap();
    match event(&mut changes).await.change {
        Change::Update { changed, .. } => assert_eq!(changed, doc! { "extra": 1 }),
        other => panic!("{other:?}"),
    }
    raw.update_one(doc! { "_id": "o1" }, doc! { "$unset": { "extra": "" } })
        .await
        .unwrap();
    match event(&mut changes).await.change {
        Change::Update {
            changed,
            removed,
            full,
            ..
        } => {
            assert!(changed.is_empty());
            assert_eq!(removed, ["extra"]);
            assert_eq!(full, Some(order("o1", "paid", 2)));
        }
        other => panic!("{other:?}"),
    }

    let replaced = order("o1", "shipped", 3);
    assert!(orders.replace(&replaced).await.unwrap());
    match event(&mut changes).await.change {
        Change::Replace(o) => assert_eq!(o, replaced),
        other => panic!("{other:?}"),
    }
    assert!(orders.delete(&"o1".to_owned()).await.unwrap());
    match event(&mut changes).await.change {
        Change::Delete { id, .. } => assert_eq!(id, "o1"),
        other => panic!("{other:?}"),
    }

    // The collection dropped: `drop`, then `invalidate`, then (the default
    // policy) an error saying why, and the end.
    raw.drop().await.unwrap();
    assert!(matches!(event(&mut changes).await.change, Change::Dropped));
    assert!(matches!(
        event(&mut changes).await.change,
        Change::Invalidate
    ));
    match next(&mut changes).await {
        Some(Err(Error::Change(e))) => match *e {
            ChangeError::Lost { because, last, .. } => {
                assert_eq!(because, LostBecause::Invalidated);
                assert!(last.is_some());
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    assert!(next(&mut changes).await.is_none());
    assert_eq!(changes.opens(), 1);
}

#[tokio::test]
async fn a_document_at_an_earlier_version_is_upgraded_on_its_insert() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "watch_upgrade").await;
    let orders = Repo::<Parcel>::new(&db);
    let mut changes = orders.watch().await.unwrap();
    let raw = db.collection::<bson::Document>("watched_parcels");
    // Written by version 1's code: no version field.
    raw.insert_one(doc! { "_id": "old", "state": "paid" })
        .await
        .unwrap();
    match event(&mut changes).await.change {
        Change::Insert(o) => assert_eq!(
            o,
            Parcel {
                id: "old".into(),
                status: "paid".into(),
                grams: 0
            }
        ),
        other => panic!("{other:?}"),
    }
    // And a replace at version 2 reads as it is.
    raw.replace_one(
        doc! { "_id": "old" },
        doc! { "_id": "old", "status": "shipped", "grams": 4_i64, VERSION_FIELD: 2 },
    )
    .await
    .unwrap();
    match event(&mut changes).await.change {
        Change::Replace(o) => assert_eq!(
            o,
            Parcel {
                id: "old".into(),
                status: "shipped".into(),
                grams: 4
            }
        ),
        other => panic!("{other:?}"),
    }
}

/// A stored value no message may show.
const SECRET: &str = "4111-1111-1111-1111";

#[tokio::test]
async fn a_change_the_model_cannot_read_names_its_id_and_no_stored_value() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "watch_undecodable").await;
    let orders = Repo::<Order>::new(&db);
    let raw = db.collection::<bson::Document>("watched_orders");
    let bad = doc! { "_id": "bad", "status": 5, "itemCount": SECRET };

    // Without `skip_undecodable`: the error, then the end.
    let mut stops = orders.watch().await.unwrap();
    // With it: the error, then the next change.
    let mut skips = orders.watch().skip_undecodable().await.unwrap();
    raw.insert_one(bad).await.unwrap();
    orders.insert(&order("good", "new", 1)).await.unwrap();

    for stream in [&mut stops, &mut skips] {
        let err = match next(stream).await {
            Some(Err(e)) => e,
            other => panic!("{other:?}"),
        };
        let message = err.to_string();
        assert!(message.contains("_id `bad`"), "{message}");
        assert!(message.contains("insert"), "{message}");
        assert!(message.contains("Order"), "{message}");
        assert!(!message.contains(SECRET) && !format!("{err:?}").contains(SECRET));
        match &err {
            Error::Change(e) => match &**e {
                ChangeError::Undecodable { id, why, .. } => {
                    assert_eq!(id, "bad");
                    assert!(why.contains("status") || why.contains("itemCount"), "{why}");
                }
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }
    assert!(next(&mut stops).await.is_none(), "it stops at the error");
    let token_past_bad = skips.resume_token();
    match event(&mut skips).await.change {
        Change::Insert(o) => assert_eq!(o.id, "good"),
        other => panic!("{other:?}"),
    }
    // The token of the skipped change resumes after it.
    let mut again = orders
        .watch()
        .resume_after(token_past_bad.unwrap())
        .await
        .unwrap();
    match event(&mut again).await.change {
        Change::Insert(o) => assert_eq!(o.id, "good"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_saved_token_resumes_just_after_its_change() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "watch_resume").await;
    let orders = Repo::<Order>::new(&db);
    let mut changes = orders.watch().await.unwrap();
    for i in 0..3 {
        orders
            .insert(&order(&format!("o{i}"), "new", i))
            .await
            .unwrap();
    }
    let first = event(&mut changes).await;
    drop(changes);
    let mut resumed = orders.watch().resume_after(first.token).await.unwrap();
    for i in 1..3 {
        match event(&mut resumed).await.change {
            Change::Insert(o) => assert_eq!(o.id, format!("o{i}")),
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn after_a_drop_restart_from_now_goes_on_just_after_the_invalidate() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "watch_drop").await;
    let orders = Repo::<Order>::new(&db);
    orders.insert(&order("before", "new", 1)).await.unwrap();
    let mut changes = orders
        .watch()
        .on_lost(schema_core::OnLost::RestartFromNow)
        .await
        .unwrap();
    orders.collection().drop().await.unwrap();
    // Written between the invalidate and the stream opening again.
    orders.insert(&order("after", "new", 2)).await.unwrap();
    assert!(matches!(event(&mut changes).await.change, Change::Dropped));
    assert!(matches!(
        event(&mut changes).await.change,
        Change::Invalidate
    ));
    match event(&mut changes).await.change {
        Change::Insert(o) => assert_eq!(o.id, "after"),
        other => panic!("{other:?}"),
    }
    assert_eq!(changes.opens(), 2);
}
