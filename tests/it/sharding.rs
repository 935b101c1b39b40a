//! Shard keys on the test server, which is not a mongos: a sharded model
//! syncs like any other (its shard key's index created, nothing else), the
//! plan lists its collection as not sharded and is otherwise empty the
//! second time, and the helpers work on it. Hashed indexes (what a hashed
//! shard key needs) are served by the index guard for equality only. What
//! a mongos replies and the commands `sync` sends there are tested against
//! recorded replies in `schema-core/src/cluster/tests.rs`; with `MONGODB_SHARDED_URI`
//! set to a real mongos, the last test here shards the same models on the
//! cluster and checks what `config.collections` then lists.

use crate::support;

use bson::doc;
use schema_core::prelude::*;
use schema_core::ShardKey;
use schema_core::{Error, IndexKind, IndexOrigin, Schema, Step};
use serde::{Deserialize, Serialize};

/// Ranged on the room, then the message's place in it; renamed fields.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "messages", shard_key(room_id, n))]
struct Message {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "roomId")]
    room_id: String,
    n: i64,
    text: String,
}

/// Hashed on `_id`.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "rooms", shard_key(hashed(id)))]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    name: String,
}

/// The reference's index starts with the shard key: no other index.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(
    collection = "members",
    shard_key(team_id),
    index(keys(team_id = asc, email = asc), unique)
)]
struct Member {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "teamId")]
    #[reference(index)]
    team_id: String,
    email: String,
}

/// A hashed index declared for equality lookups.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "devices", index(keys(serial = hashed)))]
struct Device {
    #[serde(rename = "_id")]
    id: String,
    serial: String,
    seen: i64,
}

/// The guard refused the query: `Unindexed`, and nothing sent since `log`
/// was last cleared.
fn refused<T: std::fmt::Debug>(log: &schema_testkit::CommandLog, result: Result<T, Error>) {
    let err = result.unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    assert!(log.take().is_empty(), "nothing sent");
}

#[test]
fn the_shard_key_and_its_index_by_stored_names() {
    assert_eq!(Message::SHARD_KEY, Some(ShardKey::ranged(&["roomId", "n"])));
    let indexes = Message::indexes();
    assert_eq!(indexes.len(), 1);
    assert_eq!(indexes[0].name, "roomId_1_n_1");
    assert_eq!(indexes[0].origin, IndexOrigin::ShardKey);

    assert_eq!(Room::SHARD_KEY, Some(ShardKey::hashed(&["_id"])));
    assert_eq!(Room::indexes()[0].key_document(), doc! { "_id": "hashed" });
    assert_eq!(Room::indexes()[0].kind, IndexKind::Hashed);

    // Both declared indexes start with `teamId`: neither is added to.
    let names: Vec<String> = Member::indexes().into_iter().map(|i| i.name).collect();
    assert_eq!(names, ["teamId_1__id_1", "teamId_1_email_1"]);

    assert_eq!(Device::indexes()[0].name, "serial_hashed");
    assert_eq!(Device::SHARD_KEY, None);
}

#[tokio::test]
async fn a_sharded_model_syncs_on_a_replica_set_and_every_helper_works() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "sharding_rs").await;
    let schema = Schema::new().with::<Message>().with::<Member>();
    let plan = schema.plan(&db).await.unwrap();
    let listed: Vec<&str> = plan
        .unsharded
        .iter()
        .map(|u| u.collection.as_str())
        .collect();
    assert_eq!(listed, ["members", "messages"]);
    assert!(plan.to_string().contains("not sharded: messages: shard key { \"roomId\": 1, \"n\": 1 } not applied: the server is not a mongos"), "{plan}");
    assert!(
        !plan
            .steps
            .iter()
            .any(|a| matches!(a, Step::ShardCollection { .. })),
        "{plan}"
    );

    let report = schema.sync(&db).await.unwrap();
    let created: Vec<String> = report
        .applied
        .iter()
        .filter_map(|a| match a {
            Step::CreateIndex { spec, .. } => Some(spec.name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        created,
        ["teamId_1__id_1", "teamId_1_email_1", "roomId_1_n_1"]
    );
    let index = support::listed_index(&db, "messages", "roomId_1_n_1")
        .await
        .expect("the shard key's index");
    assert_eq!(
        index.get_document("key").unwrap(),
        &doc! { "roomId": 1, "n": 1 }
    );

    // In sync the second time: nothing applied, only the note.
    log.clear();
    let again = schema.sync(&db).await.unwrap();
    assert!(again.applied.is_empty(), "{:?}", again.applied);
    let plan = schema.plan(&db).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
    assert_eq!(plan.unsharded.len(), 2);
    assert!(
        log.take()
            .iter()
            .all(|c| !c.starts_with("shardCollection") && !c.starts_with("enableSharding")),
        "nothing shards on a replica set"
    );

    // Every helper, on the model's own fields.
    let messages = Repo::<Message>::new(&db);
    let m = |n: i64| Message {
        id: format!("m{n}"),
        room_id: "lobby".into(),
        n,
        text: format!("hello {n}"),
    };
    messages.insert(&m(1)).await.unwrap();
    messages.insert_many(&[m(2), m(3)]).await.unwrap();
    assert_eq!(messages.get(&"m2".to_owned()).await.unwrap(), Some(m(2)));
    let mut third = m(3);
    third.text = "edited".into();
    assert!(messages.replace(&third).await.unwrap());
    let lobby = "lobby".to_owned();
    let fields = &Message::FIELDS;
    let updated = messages
        .update_many(
            fields.room_id.eq(&lobby) & fields.n.gte(&2),
            fields.text.set(&"bumped".to_owned()),
        )
        .await
        .unwrap();
    assert_eq!(updated.modified, 2);
    // Moving many messages to another room at once writes the shard key of
    // each: a cluster changes it one document at a time only, so it is
    // refused before anything is sent, and nothing moved.
    log.clear();
    let moved = messages
        .update_many(
            fields.room_id.eq(&lobby),
            fields.room_id.set(&"hall".to_owned()),
        )
        .await
        .unwrap_err();
    assert!(matches!(moved, Error::Model(_)), "{moved}");
    assert!(
        moved
            .to_string()
            .contains("`roomId`, a field of `Message`'s shard key"),
        "{moved}"
    );
    assert!(log.take().is_empty(), "nothing sent");
    let renumbered = messages
        .update_many(fields.room_id.eq(&lobby), fields.n.inc(&10))
        .await
        .unwrap_err();
    assert!(renumbered.to_string().contains("`n`"), "{renumbered}");
    // The shard key's index serves the room's messages in order.
    let page = messages
        .find(fields.room_id.eq(&lobby) & fields.n.gt(&1))
        .sort(fields.n.asc())
        .all()
        .await
        .unwrap();
    let ns: Vec<i64> = page.iter().map(|m| m.n).collect();
    assert_eq!(ns, [2, 3]);
    let explained = messages
        .find(fields.room_id.eq(&lobby) & fields.n.gt(&1))
        .sort(fields.n.asc())
        .explain()
        .await
        .unwrap();
    assert!(
        explained
            .stages
            .iter()
            .any(|s| s.contains("IXSCAN(roomId_1_n_1)")),
        "{explained}"
    );
    assert!(messages.delete(&"m1".to_owned()).await.unwrap());
    assert_eq!(
        messages
            .delete_many(fields.room_id.eq(&lobby))
            .await
            .unwrap(),
        2
    );
    assert_eq!(messages.get(&"m3".to_owned()).await.unwrap(), None);

    // The unique index starting with the shard key is enforced.
    let members = Repo::<Member>::new(&db);
    let member = |id: &str| Member {
        id: id.into(),
        team_id: "t1".into(),
        email: "ann@example.org".into(),
    };
    members.insert(&member("a")).await.unwrap();
    let err = members.insert(&member("b")).await.unwrap_err();
    assert!(matches!(err, Error::DuplicateKey { .. }), "{err}");
}

#[tokio::test]
async fn a_hashed_index_serves_equality_only() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "sharding_hashed").await;
    // The test server does not build hashed indexes ("not supported by the
    // Rust storage engine yet"), so the collection stays without its index:
    // the guard counts on the hashed index for equality and `$in`, and the
    // server check that follows it finds the index missing.
    let devices = Repo::<Device>::new(&db);
    let fields = &Device::FIELDS;
    let serial = "SN-1".to_owned();
    let missing = |result: Result<Vec<Device>, Error>| {
        let err = result.unwrap_err();
        assert!(
            matches!(&err, Error::MissingIndex { index, .. } if index == "serial_hashed"),
            "{err}"
        );
    };
    missing(devices.find(fields.serial.eq(&serial)).all().await);
    missing(
        devices
            .find(fields.serial.is_in([&serial, &"SN-2".to_owned()]))
            .all()
            .await,
    );
    // A hash keeps no order: a range or a sort on it finds no bound.
    log.clear();
    let range = devices.find(fields.serial.gt(&serial)).all().await;
    refused(&log, range);
    let sorted = devices
        .find(schema_core::Filter::all())
        .sort(fields.serial.asc())
        .all()
        .await;
    refused(&log, sorted);
    // (An ordered index on `serial` would serve both.)
    // Sorted by `serial` within one `serial` is no order at all: served.
    missing(
        devices
            .find(fields.serial.eq(&serial))
            .sort(fields.serial.asc())
            .all()
            .await,
    );
    // A model with a hashed shard key on `_id`: its other fields are
    // unindexed, and `_id`'s own index still serves `_id` ranges.
    let rooms = Repo::<Room>::new(&db);
    let name = "lobby".to_owned();
    log.clear();
    let unindexed = rooms.find(Room::FIELDS.name.eq(&name)).all().await;
    refused(&log, unindexed);
    assert!(rooms
        .find(Room::FIELDS.id.gt(&"r".to_owned()))
        .all()
        .await
        .is_ok());
}

/// Opt-in: with `MONGODB_SHARDED_URI` set to a mongos (`mongodb://host:27017`
/// or an Atlas `mongodb+srv://` URI of a sharded cluster, with a user that
/// may shard collections), shards `Message` (ranged) and `Room` (hashed) in
/// a fresh database, checks `config.collections`, runs the helpers, and
/// shows that another key is drift with the command to change it; then
/// drops the database. Without it, says so and checks nothing.
#[tokio::test]
async fn on_a_real_cluster_when_asked() {
    let Ok(uri) = std::env::var("MONGODB_SHARDED_URI") else {
        eprintln!("MONGODB_SHARDED_URI is not set: the sharded-cluster suite did not run");
        return;
    };
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    let hello = client
        .database("admin")
        .run_command(doc! { "hello": 1 })
        .await
        .unwrap();
    assert_eq!(
        hello.get_str("msg").ok(),
        Some("isdbgrid"),
        "MONGODB_SHARDED_URI must name a mongos: {hello}"
    );
    let name = format!("schema_sharding_{}", std::process::id());
    let db = client.database(&name);
    let schema = Schema::new().with::<Message>().with::<Room>();
    let plan = schema.plan(&db).await.unwrap();
    let sharding: Vec<Vec<bson::Document>> = plan
        .steps
        .iter()
        .map(Step::sharding_commands)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(sharding.len(), 2, "{plan}");
    schema.sync(&db).await.unwrap();
    let config = client
        .database("config")
        .collection::<bson::Document>("collections");
    for (collection, key) in [
        ("messages", doc! { "roomId": 1, "n": 1 }),
        ("rooms", doc! { "_id": "hashed" }),
    ] {
        let entry = config
            .find_one(doc! { "_id": format!("{name}.{collection}") })
            .await
            .unwrap()
            .expect("sharded");
        // The server may list the directions as doubles or longs.
        let listed: bson::Document = entry
            .get_document("key")
            .unwrap()
            .iter()
            .map(|(k, v)| match v {
                bson::Bson::Double(n) => (k.clone(), bson::Bson::Int32(*n as i32)),
                bson::Bson::Int64(n) => (k.clone(), bson::Bson::Int32(*n as i32)),
                other => (k.clone(), other.clone()),
            })
            .collect();
        assert_eq!(listed, key, "{collection}");
    }
    let again = schema.plan(&db).await.unwrap();
    assert!(again.is_empty() && again.unsharded.is_empty(), "{again}");

    let messages = Repo::<Message>::new(&db);
    let m = Message {
        id: "m1".into(),
        room_id: "lobby".into(),
        n: 1,
        text: "hello".into(),
    };
    messages.insert(&m).await.unwrap();
    assert_eq!(
        messages.get(&"m1".to_owned()).await.unwrap(),
        Some(m.clone())
    );
    assert!(messages.replace(&m).await.unwrap());
    assert!(messages.delete(&"m1".to_owned()).await.unwrap());
    let rooms = Repo::<Room>::new(&db);
    let room = Room {
        id: "r1".into(),
        name: "lobby".into(),
    };
    rooms.insert(&room).await.unwrap();
    assert!(rooms
        .find(Room::FIELDS.id.eq(&"r1".to_owned()))
        .all()
        .await
        .is_ok());

    // The same collection under a model keyed on the room alone.
    #[derive(Document, Serialize, Deserialize)]
    #[document(collection = "messages", shard_key(room_id, n, id))]
    struct Longer {
        #[serde(rename = "_id")]
        id: String,
        #[serde(rename = "roomId")]
        room_id: String,
        n: i64,
    }
    let plan = Schema::new().with::<Longer>().plan(&db).await.unwrap();
    let refine = plan.steps.iter().find_map(|a| match a {
        Step::ShardKeyDiffers { suggested, .. } => suggested.clone(),
        _ => None,
    });
    assert_eq!(
        refine,
        Some(doc! {
            "refineCollectionShardKey": format!("{name}.messages"),
            "key": { "roomId": 1, "n": 1, "_id": 1 },
        }),
        "{plan}"
    );
    db.drop().await.unwrap();
}

/// `replace` sends the shard key's values from the document, so that a
/// mongos routes it to one shard; a replacement that moves the document to
/// another room matches nothing that way and is sent again by `_id` alone.
#[tokio::test]
async fn replace_filters_on_the_shard_key_of_the_document() {
    let (client, log) = support::keeping_client().await;
    let db = support::fresh_db(&client, "sharding_replace").await;
    Schema::new().with::<Message>().sync(&db).await.unwrap();
    let messages = Repo::<Message>::new(&db);
    let mut m = Message {
        id: "m1".into(),
        room_id: "lobby".into(),
        n: 7,
        text: "hello".into(),
    };
    messages.insert(&m).await.unwrap();
    let filters = |log: &schema_testkit::CommandLog| -> Vec<bson::Document> {
        log.take_sent()
            .into_iter()
            .filter(|s| s.name == "update")
            .map(|s| {
                let update = s.command.get_array("updates").unwrap()[0].clone();
                update
                    .as_document()
                    .unwrap()
                    .get_document("q")
                    .unwrap()
                    .clone()
            })
            .collect()
    };

    log.take_sent();
    m.text = "edited".into();
    assert!(messages.replace(&m).await.unwrap());
    assert_eq!(
        filters(&log),
        [doc! { "_id": "m1", "roomId": "lobby", "n": 7_i64 }]
    );

    // Moved to another room: the targeted filter misses, `_id` finds it.
    m.room_id = "hall".into();
    assert!(messages.replace(&m).await.unwrap());
    assert_eq!(
        filters(&log),
        [
            doc! { "_id": "m1", "roomId": "hall", "n": 7_i64 },
            doc! { "_id": "m1" },
        ]
    );
    assert_eq!(messages.get(&"m1".to_owned()).await.unwrap(), Some(m));

    // A missing document: both miss, and the replace says so.
    let ghost = Message {
        id: "ghost".into(),
        room_id: "lobby".into(),
        n: 1,
        text: String::new(),
    };
    assert!(!messages.replace(&ghost).await.unwrap());
}
