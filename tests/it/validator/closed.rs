//! Closed validators: a stored document may hold only the fields its model
//! declares (`additionalProperties: false` on the root, on every `Embedded`
//! struct and on every enum variant's object), so another program cannot grow
//! an undeclared array inside a bounded collection. `#[document(open)]` opts
//! one type out, at its own level only: each sub-document type decides for
//! itself.

use crate::support;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::error::{ErrorKind, WriteFailure};
use mongodb::{Collection, Database};
use schema_core::code::DOCUMENT_VALIDATION_FAILURE;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

/// Everything the framework writes for a closed model: optional fields as
/// null or left out, a skipped field never, a struct's serde tag.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "rooms")]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    room_name: String,
    #[embed(max = 3)]
    tags: Vec<String>,
    profile: Profile,
    meta: Meta,
    note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extra: Option<i32>,
    #[serde(skip)]
    cache: Vec<String>,
}

/// A closed sub-document that stores a tag (`{"kind": "prof", ...}`).
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename = "prof")]
struct Profile {
    bio: String,
}

/// An open sub-document inside a closed root.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(open)]
struct Meta {
    source: String,
}

/// The opt-out: an open root, whose sub-document stays closed.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "open_rooms", open)]
struct OpenRoom {
    #[serde(rename = "_id")]
    id: String,
    name: String,
    profile: Profile,
}

fn room(id: &str, note: Option<&str>, extra: Option<i32>) -> Room {
    Room {
        id: id.to_owned(),
        room_name: "lobby".into(),
        tags: vec!["a".into()],
        profile: Profile { bio: "hi".into() },
        meta: Meta {
            source: "import".into(),
        },
        note: note.map(str::to_owned),
        extra,
        cache: vec!["never stored".into()],
    }
}

async fn setup(test: &str) -> (Database, Collection<BsonDocument>, Collection<BsonDocument>) {
    let client = support::client().await;
    let db = support::fresh_db(&client, test).await;
    Schema::new()
        .with::<Room>()
        .with::<OpenRoom>()
        .sync(&db)
        .await
        .unwrap();
    Repo::<Room>::new(&db)
        .insert(&room("r", None, None))
        .await
        .unwrap();
    Repo::<OpenRoom>::new(&db)
        .insert(&OpenRoom {
            id: "o".into(),
            name: "open".into(),
            profile: Profile { bio: "hi".into() },
        })
        .await
        .unwrap();
    let rooms = db.collection::<BsonDocument>("rooms");
    let open = db.collection::<BsonDocument>("open_rooms");
    (db, rooms, open)
}

/// The server's error code of a raw write.
fn code(err: &mongodb::error::Error) -> Option<i32> {
    match err.kind.as_ref() {
        ErrorKind::Write(WriteFailure::WriteError(w)) => Some(w.code),
        ErrorKind::Command(c) => Some(c.code),
        _ => None,
    }
}

fn five_thousand() -> Vec<Bson> {
    (0..5_000)
        .map(|i| Bson::String(format!("item {i}")))
        .collect()
}

/// A raw update must be refused with code 121 and leave the document as it was.
async fn assert_refused(
    coll: &Collection<BsonDocument>,
    id: &str,
    what: &str,
    update: BsonDocument,
) {
    let before = coll.find_one(doc! { "_id": id }).await.unwrap().unwrap();
    match coll.update_one(doc! { "_id": id }, update).await {
        Ok(result) => panic!("{what}: accepted ({result:?})"),
        Err(err) => assert_eq!(
            code(&err),
            Some(DOCUMENT_VALIDATION_FAILURE),
            "{what}: {err}"
        ),
    }
    let after = coll.find_one(doc! { "_id": id }).await.unwrap().unwrap();
    assert_eq!(before, after, "{what}: the document changed");
}

#[tokio::test]
async fn a_push_of_5000_items_into_an_undeclared_field_is_refused() {
    let (_db, rooms, _) = setup("closed_push").await;
    let push = |path: &str| doc! { "$push": { path: { "$each": five_thousand() } } };
    assert_refused(&rooms, "r", "undeclared root field", push("junk")).await;
    assert_refused(
        &rooms,
        "r",
        "undeclared field of a closed sub-document",
        push("profile.junk"),
    )
    .await;
    assert_refused(
        &rooms,
        "r",
        "the Rust name of a renamed field",
        push("room_name"),
    )
    .await;
    assert_refused(&rooms, "r", "a skipped field", push("cache")).await;
    assert_refused(
        &rooms,
        "r",
        "an undeclared field on insert",
        doc! { "$set": { "junk": [1, 2, 3] } },
    )
    .await;
    let inserted = rooms
        .insert_one(doc! {
            "_id": "r2", "roomName": "x", "tags": [], "profile": { "kind": "prof", "bio": "" },
            "meta": { "source": "" }, "note": null, "junk": five_thousand(),
        })
        .await;
    assert_eq!(
        code(&inserted.unwrap_err()),
        Some(DOCUMENT_VALIDATION_FAILURE),
        "insert with junk"
    );
    assert_eq!(rooms.count_documents(doc! {}).await.unwrap(), 1);
}

#[tokio::test]
async fn the_open_models_accept_undeclared_fields_at_their_own_level_only() {
    let (_db, rooms, open) = setup("closed_open").await;
    // `#[document(open)]` on the root.
    open.update_one(
        doc! { "_id": "o" },
        doc! { "$push": { "junk": { "$each": five_thousand() } } },
    )
    .await
    .unwrap();
    let stored = open.find_one(doc! { "_id": "o" }).await.unwrap().unwrap();
    assert_eq!(stored.get_array("junk").unwrap().len(), 5_000);
    // Its sub-document is closed all the same.
    assert_refused(
        &open,
        "o",
        "a closed sub-document in an open root",
        doc! { "$set": { "profile.junk": 1 } },
    )
    .await;
    // `#[document(open)]` on an `Embedded` inside a closed root.
    rooms
        .update_one(
            doc! { "_id": "r" },
            doc! { "$set": { "meta.junk": [1, 2] } },
        )
        .await
        .unwrap();
    assert_refused(
        &rooms,
        "r",
        "the closed root around an open sub-document",
        doc! { "$set": { "junk": [1, 2] } },
    )
    .await;
    // Declared fields keep their rules in an open model.
    assert_refused(
        &open,
        "o",
        "a declared field of the wrong type",
        doc! { "$set": { "name": 5 } },
    )
    .await;
}

#[tokio::test]
async fn everything_the_framework_writes_fits_the_closed_validator() {
    let (db, rooms, _) = setup("closed_framework").await;
    let repo = Repo::<Room>::new(&db);
    repo.insert(&room("a", Some("n"), Some(1))).await.unwrap();
    repo.insert(&room("b", None, Some(2))).await.unwrap();
    repo.replace(&room("b", Some("again"), None)).await.unwrap();
    repo.embed(Room::FIELDS.tags)
        .push(&"a".to_owned(), &"t2".to_owned())
        .await
        .unwrap();
    let a = rooms.find_one(doc! { "_id": "a" }).await.unwrap().unwrap();
    assert_eq!(
        a.get_document("profile").unwrap(),
        &doc! { "kind": "prof", "bio": "hi" },
        "the struct's serde tag is stored and declared"
    );
    assert!(!a.contains_key("cache"));
    let r = rooms.find_one(doc! { "_id": "r" }).await.unwrap().unwrap();
    assert_eq!(r.get("note"), Some(&Bson::Null));
    assert!(
        !r.contains_key("extra"),
        "skip_serializing_if leaves it out"
    );
    let read = repo.get(&"a".to_owned()).await.unwrap().unwrap();
    assert!(read.cache.is_empty());
    assert_eq!(read.tags, ["a", "t2"]);
}

#[tokio::test]
async fn an_edge_collection_holds_its_two_ids_only() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "closed_edges").await;
    let edges = Through::<Room, OpenRoom>::new(&db, "edges", "roomId", "openId");
    let mut schema = Schema::new().with::<Room>().with::<OpenRoom>();
    schema = schema.with_info(edges.model_info());
    schema.sync(&db).await.unwrap();
    edges.link(&"r".to_owned(), &"o".to_owned()).await.unwrap();
    let raw = db.collection::<BsonDocument>("edges");
    let id = raw
        .find_one(doc! {})
        .await
        .unwrap()
        .unwrap()
        .get("_id")
        .cloned()
        .unwrap();
    let pushed = raw
        .update_one(
            doc! { "_id": id },
            doc! { "$push": { "junk": { "$each": five_thousand() } } },
        )
        .await;
    assert_eq!(
        code(&pushed.unwrap_err()),
        Some(DOCUMENT_VALIDATION_FAILURE)
    );
    assert!(edges
        .contains(&"r".to_owned(), &"o".to_owned())
        .await
        .unwrap());
}

/// Closing is a tightening: stored documents that hold undeclared fields are
/// counted and the new validator is refused until the caller chooses how.
#[tokio::test]
async fn closing_a_collection_that_holds_undeclared_fields_is_refused_by_sync() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "closed_upgrade").await;
    let raw = db.collection::<BsonDocument>("open_rooms");
    raw.insert_one(doc! {
        "_id": "old", "name": "n", "profile": { "kind": "prof", "bio": "" }, "legacy": [1, 2],
    })
    .await
    .unwrap();
    // The open model accepts it as it is.
    Schema::new().with::<OpenRoom>().sync(&db).await.unwrap();
    // The same collection under a closed model: counted and refused.
    #[derive(Document, Serialize, Deserialize, Debug)]
    #[document(collection = "open_rooms")]
    struct ClosedRoom {
        #[serde(rename = "_id")]
        id: String,
        name: String,
        profile: Profile,
    }
    let err = Schema::new()
        .with::<ClosedRoom>()
        .sync(&db)
        .await
        .unwrap_err();
    match &err {
        Error::ValidatorRejectsExisting { count, ids, .. } => {
            assert_eq!((*count, ids.len()), (1, 1), "{err}");
            assert!(ids[0].contains("old"), "{err}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn every_level_the_model_describes_is_closed() {
    let schema = Room::json_schema();
    assert_eq!(schema.get_bool("additionalProperties").ok(), Some(false));
    let properties = schema.get_document("properties").unwrap();
    assert!(properties.contains_key("_id"), "the root allows `_id`");
    let profile = properties.get_document("profile").unwrap();
    assert_eq!(profile.get_bool("additionalProperties").ok(), Some(false));
    let meta = properties.get_document("meta").unwrap();
    assert!(!meta.contains_key("additionalProperties"), "{meta}");
    let open = OpenRoom::json_schema();
    assert!(!open.contains_key("additionalProperties"), "{open}");
}
