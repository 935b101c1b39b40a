//! Bounded writes to an `Option` array stored as null: `push`, `push_many`
//! and `pull` treat null as an empty array and keep the `max`; the subset
//! pattern's `push_keeping` does too, and both name a missing document.

use crate::support;

use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "things")]
struct Thing {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 3)]
    labels: Option<Vec<String>>,
}

fn thing(id: &str) -> Thing {
    Thing {
        id: id.into(),
        labels: None,
    }
}

#[tokio::test]
async fn push_and_pull_on_an_option_array_stored_as_null() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "opt_array_push").await;
    Schema::new().with::<Thing>().sync(&db).await.unwrap();
    let things = Repo::<Thing>::new(&db);
    things.insert(&thing("a")).await.unwrap();
    let labels = things.embed(Thing::FIELDS.labels);
    let id = "a".to_owned();
    labels.pull(&id, &"x".to_owned()).await.unwrap();
    labels.push(&id, &"x".to_owned()).await.unwrap();
    labels
        .push_many(&id, &["y".to_owned(), "z".to_owned()])
        .await
        .unwrap();
    let err = labels.push(&id, &"w".to_owned()).await.unwrap_err();
    assert!(matches!(err, Error::EmbedFull { max: 3, .. }), "{err:?}");
    let stored = things.get(&id).await.unwrap().unwrap();
    assert_eq!(
        stored.labels,
        Some(vec!["x".into(), "y".into(), "z".into()])
    );
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "rooms")]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 2, keep = "newest", history = Message)]
    recent: Option<Vec<i32>>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "messages")]
struct Message {
    #[serde(rename = "_id")]
    id: i32,
}

#[tokio::test]
async fn push_keeping_on_an_option_array_stored_as_null() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "opt_array_keep").await;
    Schema::new()
        .with::<Room>()
        .with::<Message>()
        .sync(&db)
        .await
        .unwrap();
    let rooms = Repo::<Room>::new(&db);
    let id = "r".to_owned();
    rooms
        .insert(&Room {
            id: id.clone(),
            recent: None,
        })
        .await
        .unwrap();
    let recent = rooms.embed(Room::FIELDS.recent);
    for n in 0..3 {
        recent
            .push_keeping(&id, &n, &Message { id: n })
            .await
            .unwrap();
    }
    let stored = rooms.get(&id).await.unwrap().unwrap();
    assert_eq!(stored.recent, Some(vec![1, 2]));
    let err = recent
        .push_keeping(&"nope".to_owned(), &9, &Message { id: 9 })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    let err = recent.pull(&"nope".to_owned(), &1).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
}
