//! The sharding plan against replies a cluster returns, in the shapes the
//! MongoDB documentation shows (the `hello` reference page for a mongos,
//! the `config.collections` entry of MongoDB 5.0 and later, a
//! `listIndexes` cursor batch), and the exact commands `sync` would send.

use bson::{doc, DateTime, Document};

use super::{by_namespace, plan, Deployment};
use crate::model::index::server::ServerIndex;
use crate::model::index::{Direction, IndexKind, IndexOrigin, IndexSpec};
use crate::model::shard::{with_supporting_index, ShardKey};
use crate::setup::plan::diff_indexes;
use crate::setup::step::Step;

/// `hello` through a mongos of MongoDB 7.0 ("When connected to a mongos,
/// the hello command returns a document that contains the string isdbgrid
/// in the msg field").
fn mongos_hello(max_wire_version: i32) -> Document {
    doc! {
        "isWritablePrimary": true,
        "msg": "isdbgrid",
        "topologyVersion": { "processId": bson::oid::ObjectId::new(), "counter": 0_i64 },
        "maxBsonObjectSize": 16_777_216,
        "maxMessageSizeBytes": 48_000_000,
        "maxWriteBatchSize": 100_000,
        "localTime": DateTime::now(),
        "logicalSessionTimeoutMinutes": 30,
        "connectionId": 13,
        "maxWireVersion": max_wire_version,
        "minWireVersion": 0,
        "ok": 1.0,
    }
}

/// `hello` from the primary of a replica set.
fn replica_set_hello() -> Document {
    doc! {
        "isWritablePrimary": true,
        "topologyVersion": { "processId": bson::oid::ObjectId::new(), "counter": 6_i64 },
        "hosts": ["db0.example.net:27017", "db1.example.net:27017"],
        "setName": "rs0",
        "setVersion": 1,
        "secondary": false,
        "primary": "db0.example.net:27017",
        "me": "db0.example.net:27017",
        "maxBsonObjectSize": 16_777_216,
        "maxWireVersion": 21,
        "minWireVersion": 0,
        "ok": 1.0,
    }
}

/// A `config.collections` entry as MongoDB 5.0 and later keep it.
fn config_entry(namespace: &str, key: Document) -> Document {
    doc! {
        "_id": namespace,
        "lastmodEpoch": bson::oid::ObjectId::new(),
        "lastmod": DateTime::now(),
        "timestamp": bson::Timestamp { time: 1_626_966_434, increment: 13 },
        "uuid": bson::Uuid::new(),
        "key": key,
        "unique": false,
        "noBalance": false,
    }
}

const BY_ROOM: ShardKey = ShardKey::ranged(&["roomId", "n"]);
const BY_ID_HASH: ShardKey = ShardKey::hashed(&["_id"]);

fn planned(
    hello: &Document,
    wanted: &[(&str, ShardKey)],
    sharded: &[Document],
) -> (Vec<Step>, Vec<crate::setup::plan::Unsharded>) {
    let sharded = by_namespace(sharded.to_vec());
    let (mut actions, mut unsharded) = (Vec::new(), Vec::new());
    plan(
        "chat",
        Deployment::from_hello(hello),
        wanted,
        &sharded,
        &mut actions,
        &mut unsharded,
    );
    (actions, unsharded)
}

#[test]
fn hello_tells_a_mongos_from_a_replica_set() {
    assert_eq!(
        Deployment::from_hello(&mongos_hello(21)),
        Deployment {
            mongos: true,
            max_wire_version: 21
        }
    );
    assert!(!Deployment::from_hello(&replica_set_hello()).mongos);
}

#[test]
fn an_unsharded_collection_is_sharded_with_these_commands() {
    let (actions, unsharded) = planned(
        &mongos_hello(21),
        &[("messages", BY_ROOM), ("rooms", BY_ID_HASH)],
        &[],
    );
    assert!(unsharded.is_empty());
    let commands: Vec<Vec<Document>> = actions.iter().map(Step::sharding_commands).collect();
    assert_eq!(
        commands,
        [
            vec![doc! { "shardCollection": "chat.messages", "key": { "roomId": 1, "n": 1 } }],
            vec![doc! { "shardCollection": "chat.rooms", "key": { "_id": "hashed" } }],
        ]
    );
    assert!(actions.iter().all(|a| !a.is_drift()));
}

#[test]
fn a_server_before_6_0_enables_sharding_first() {
    let (actions, _) = planned(&mongos_hello(13), &[("messages", BY_ROOM)], &[]);
    assert_eq!(
        actions[0].sharding_commands(),
        [
            doc! { "enableSharding": "chat" },
            doc! { "shardCollection": "chat.messages", "key": { "roomId": 1, "n": 1 } },
        ]
    );
}

#[test]
fn a_collection_sharded_on_its_key_needs_nothing() {
    // The server may list the key's numbers as doubles.
    let entry = config_entry("chat.messages", doc! { "roomId": 1.0, "n": 1.0 });
    let (actions, unsharded) = planned(&mongos_hello(21), &[("messages", BY_ROOM)], &[entry]);
    assert!(actions.is_empty() && unsharded.is_empty(), "{actions:?}");
}

#[test]
fn another_key_is_drift_with_the_command_to_change_it() {
    // The model adds `n` after the server's key: refine it in place.
    let shorter = config_entry("chat.messages", doc! { "roomId": 1 });
    let (actions, _) = planned(&mongos_hello(21), &[("messages", BY_ROOM)], &[shorter]);
    let [Step::ShardKeyDiffers { suggested, .. }] = &actions[..] else {
        panic!("{actions:?}");
    };
    assert_eq!(
        suggested.as_ref(),
        Some(&doc! { "refineCollectionShardKey": "chat.messages", "key": { "roomId": 1, "n": 1 } })
    );
    assert!(actions[0].is_drift());
    assert!(actions[0].sharding_commands().is_empty());

    // Another first field: reshard (5.0 and later), or nothing before.
    let other = config_entry("chat.messages", doc! { "_id": "hashed" });
    let (actions, _) = planned(
        &mongos_hello(21),
        &[("messages", BY_ROOM)],
        std::slice::from_ref(&other),
    );
    let [Step::ShardKeyDiffers { suggested, .. }] = &actions[..] else {
        panic!("{actions:?}");
    };
    assert_eq!(
        suggested.as_ref(),
        Some(&doc! { "reshardCollection": "chat.messages", "key": { "roomId": 1, "n": 1 } })
    );
    let (actions, _) = planned(&mongos_hello(9), &[("messages", BY_ROOM)], &[other]);
    let [Step::ShardKeyDiffers {
        suggested: None, ..
    }] = &actions[..]
    else {
        panic!("{actions:?}");
    };
    let plan = crate::Plan {
        steps: actions,
        ..Default::default()
    };
    assert!(
        plan.to_string().contains("cannot change it in place"),
        "{plan}"
    );
}

#[test]
fn a_dropped_entry_is_not_sharded() {
    let mut entry = config_entry("chat.messages", doc! { "roomId": 1, "n": 1 });
    entry.insert("dropped", true);
    let (actions, _) = planned(&mongos_hello(21), &[("messages", BY_ROOM)], &[entry]);
    assert!(matches!(&actions[..], [Step::ShardCollection { .. }]));
}

#[test]
fn a_replica_set_leaves_the_collection_unsharded() {
    let (actions, unsharded) = planned(&replica_set_hello(), &[("messages", BY_ROOM)], &[]);
    assert!(actions.is_empty());
    assert_eq!(unsharded.len(), 1);
    assert_eq!(unsharded[0].key, doc! { "roomId": 1, "n": 1 });
    assert!(unsharded[0].to_string().contains("not a mongos"));
}

/// The server's `listIndexes` entries, as its cursor batch holds them.
fn listed(entries: &[Document]) -> Vec<ServerIndex> {
    entries
        .iter()
        .map(|e| {
            let model: mongodb::IndexModel = bson::deserialize_from_document(e.clone()).unwrap();
            ServerIndex::from_model(&model)
        })
        .collect()
}

#[test]
fn the_supporting_indexes_are_not_drift_once_listed() {
    let ranged = with_supporting_index(Vec::new(), Some(BY_ROOM));
    let hashed = with_supporting_index(Vec::new(), Some(BY_ID_HASH));
    assert_eq!(ranged[0].key_document(), doc! { "roomId": 1, "n": 1 });
    assert_eq!(ranged[0].origin, IndexOrigin::ShardKey);
    assert_eq!(hashed[0].kind, IndexKind::Hashed);
    assert_eq!(hashed[0].name, "_id_hashed");

    let server = listed(&[
        doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
        doc! { "v": 2, "key": { "roomId": 1, "n": 1 }, "name": "roomId_1_n_1" },
    ]);
    let mut actions = Vec::new();
    diff_indexes("messages", &ranged, &server, &mut actions);
    assert!(actions.is_empty(), "{actions:?}");

    let server = listed(&[
        doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
        doc! { "v": 2, "key": { "_id": "hashed" }, "name": "_id_hashed" },
    ]);
    diff_indexes("rooms", &hashed, &server, &mut actions);
    assert!(actions.is_empty(), "{actions:?}");

    // An ordered index on the hashed key's field is another index.
    let server = listed(&[doc! { "v": 2, "key": { "roomId": 1 }, "name": "roomId_hashed" }]);
    let hashed_room = with_supporting_index(Vec::new(), Some(ShardKey::hashed(&["roomId"])));
    diff_indexes("rooms", &hashed_room, &server, &mut actions);
    assert!(matches!(&actions[..], [Step::ConflictingIndex { .. }]));
}

#[test]
fn a_declared_index_starting_with_the_key_supports_it() {
    let declared = vec![IndexSpec::new(
        vec![
            ("roomId".into(), Direction::Asc),
            ("n".into(), Direction::Asc),
            ("at".into(), Direction::Desc),
        ],
        IndexOrigin::Declared,
    )];
    assert_eq!(
        with_supporting_index(declared.clone(), Some(BY_ROOM)).len(),
        1
    );
    // `_id` alone rides the server's own `_id` index.
    assert!(with_supporting_index(Vec::new(), Some(ShardKey::ranged(&["_id"]))).is_empty());
    // A sparse (or partial, hidden, collated) index cannot support a key.
    let mut sparse = declared;
    sparse[0].sparse = true;
    assert_eq!(with_supporting_index(sparse, Some(BY_ROOM)).len(), 2);
}
