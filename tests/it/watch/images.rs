//! Pre-images and an update's fields by typed path: setup turns a model's
//! `pre_images` on (a missing collection created with them, an existing one
//! without them found and changed), a stream asked `before_change` carries
//! the document as it was before each update and delete, a model without
//! pre-images refuses `before_change` before sending anything, and
//! `Change::changed` / `Change::removed` read an update by the model's field
//! paths (a nested path, a parent set whole, a removed field, a value that
//! does not fit).

use bson::doc;
use schema_core::prelude::*;
use schema_core::{Change, ChangeError, Error, Schema, Step};
use serde::{Deserialize, Serialize};

use super::{event, order, Order};
use crate::support;

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Address {
    pub city: String,
    pub zip: Option<String>,
}

/// A ticket whose collection keeps pre-images.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "watched_tickets", pre_images)]
pub struct Ticket {
    #[serde(rename = "_id")]
    pub id: String,
    pub status: String,
    pub address: Address,
}

fn ticket(id: &str, status: &str, city: &str) -> Ticket {
    Ticket {
        id: id.into(),
        status: status.into(),
        address: Address {
            city: city.into(),
            zip: Some("0150".into()),
        },
    }
}

fn pre_image_steps(steps: &[Step]) -> usize {
    steps
        .iter()
        .filter(|s| matches!(s, Step::PreImages { collection } if collection == "watched_tickets"))
        .count()
}

/// Whether the server's `watched_tickets` records pre-images.
async fn keeps_pre_images(db: &mongodb::Database) -> bool {
    let listed = db
        .run_command(doc! { "listCollections": 1, "filter": { "name": "watched_tickets" } })
        .await
        .unwrap();
    let first = listed
        .get_document("cursor")
        .and_then(|c| c.get_array("firstBatch"))
        .unwrap()[0]
        .as_document()
        .unwrap()
        .clone();
    first
        .get_document("options")
        .and_then(|o| o.get_document("changeStreamPreAndPostImages"))
        .and_then(|p| p.get_bool("enabled"))
        .unwrap_or(false)
}

#[tokio::test]
async fn sync_keeps_pre_images_and_a_stream_carries_the_document_before() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "watch_images").await;
    let schema = Schema::new().with::<Ticket>();
    let plan = schema.plan(&db).await.unwrap();
    assert!(matches!(plan.steps[0], Step::CreateCollection { .. }));
    assert_eq!(pre_image_steps(&plan.steps), 1, "{plan}");
    assert!(plan.to_string().contains("keep pre-images"), "{plan}");
    schema.sync(&db).await.unwrap();
    assert!(keeps_pre_images(&db).await);
    assert!(schema.plan(&db).await.unwrap().is_empty());

    let tickets = Repo::<Ticket>::new(&db);
    let first = ticket("t1", "open", "Oslo");
    tickets.insert(&first).await.unwrap();
    let mut changes = tickets.watch().before_change().await.unwrap();
    tickets
        .update(&"t1".to_owned(), Ticket::FIELDS.status.set("closed"))
        .await
        .unwrap();
    match event(&mut changes).await.change {
        Change::Update { before, full, .. } => {
            assert_eq!(before, Some(first.clone()));
            assert_eq!(full, None, "not asked");
        }
        other => panic!("{other:?}"),
    }
    assert!(tickets.delete(&"t1".to_owned()).await.unwrap());
    match event(&mut changes).await.change {
        Change::Delete { id, before } => {
            assert_eq!(id, "t1");
            assert_eq!(before, Some(ticket("t1", "closed", "Oslo")));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_existing_collection_without_pre_images_is_found_and_changed() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "watch_images_drift").await;
    let schema = Schema::new().with::<Ticket>();
    db.create_collection("watched_tickets").await.unwrap();
    assert!(!keeps_pre_images(&db).await);
    let plan = schema.plan(&db).await.unwrap();
    assert_eq!(pre_image_steps(&plan.steps), 1, "{plan}");
    let report = schema.sync(&db).await.unwrap();
    assert!(
        report
            .applied
            .iter()
            .any(|s| matches!(s, Step::PreImages { .. })),
        "{report:?}"
    );
    assert!(keeps_pre_images(&db).await);
    assert_eq!(pre_image_steps(&schema.plan(&db).await.unwrap().steps), 0);
}

#[tokio::test]
async fn a_model_without_pre_images_refuses_before_change_and_may_ask_when_available() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "watch_images_none").await;
    let orders = Repo::<Order>::new(&db);
    let err = orders.watch().before_change().await.unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("#[document(pre_images)]") && message.contains("nothing was sent"),
        "{message}"
    );
    let mut changes = orders.watch().before_change_when_available().await.unwrap();
    orders.insert(&order("o1", "new", 1)).await.unwrap();
    assert!(matches!(
        event(&mut changes).await.change,
        Change::Insert(_)
    ));
    assert!(orders.delete(&"o1".to_owned()).await.unwrap());
    match event(&mut changes).await.change {
        Change::Delete { id, before } => {
            assert_eq!(id, "o1");
            assert_eq!(before, None, "the collection keeps none");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_update_is_read_by_the_models_field_paths() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "watch_images_fields").await;
    let tickets = Repo::<Ticket>::new(&db);
    let raw = db.collection::<bson::Document>("watched_tickets");
    tickets.insert(&ticket("t1", "open", "Oslo")).await.unwrap();
    let mut changes = tickets.watch().await.unwrap();
    let f = Ticket::FIELDS;

    // One field set: read by its path; the others untouched.
    tickets
        .update(&"t1".to_owned(), f.status.set("paid"))
        .await
        .unwrap();
    let change = event(&mut changes).await.change;
    assert_eq!(change.changed(f.status).unwrap().unwrap(), "paid");
    assert!(change.changed(f.address.city).is_none());
    assert!(!change.removed(f.status) && !change.removed(f.address.zip));

    // A nested path set by itself.
    raw.update_one(
        doc! { "_id": "t1" },
        doc! { "$set": { "address.city": "Bergen" } },
    )
    .await
    .unwrap();
    let change = event(&mut changes).await.change;
    assert_eq!(change.changed(f.address.city).unwrap().unwrap(), "Bergen");
    assert!(change.changed(f.address).is_none() && change.changed(f.status).is_none());

    // The parent set whole: its fields read inside it, the one it lacks
    // removed.
    raw.update_one(
        doc! { "_id": "t1" },
        doc! { "$set": { "address": { "city": "Tromsø" } } },
    )
    .await
    .unwrap();
    let change = event(&mut changes).await.change;
    assert_eq!(change.changed(f.address.city).unwrap().unwrap(), "Tromsø");
    assert!(change.changed(f.address.zip).is_none());
    assert!(change.removed(f.address.zip) && !change.removed(f.address.city));
    let address = change.changed(f.address).unwrap().unwrap();
    assert_eq!(address.city, "Tromsø");

    // A field removed, by its path or its parent's.
    raw.update_one(doc! { "_id": "t1" }, doc! { "$unset": { "address": "" } })
        .await
        .unwrap();
    let change = event(&mut changes).await.change;
    assert!(change.removed(f.address.city) && change.removed(f.address));
    assert!(!change.removed(f.status));

    // A value that does not fit the field: an error naming the `_id` and
    // the field, never the value.
    raw.update_one(
        doc! { "_id": "t1" },
        doc! { "$set": { "status": 4111_i64 } },
    )
    .await
    .unwrap();
    let change = event(&mut changes).await.change;
    let err = change.changed(f.status).unwrap().unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("_id `t1`") && message.contains("`status`"),
        "{message}"
    );
    assert!(!message.contains("4111"), "{message}");
    assert!(matches!(&err, Error::Change(e) if matches!(**e, ChangeError::Undecodable { .. })));

    // Not an update: nothing changed by path.
    assert!(tickets.delete(&"t1".to_owned()).await.unwrap());
    let change = event(&mut changes).await.change;
    assert!(change.changed(f.status).is_none() && !change.removed(f.status));
}
