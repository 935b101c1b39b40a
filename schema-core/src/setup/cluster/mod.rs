//! What setup reads of a cluster and the sharding steps it plans: whether
//! the server is a mongos (its `hello` reply), how the models' collections
//! are sharded (`config.collections`), and the commands that shard them.
//! The planning is a function of those replies alone, so it is tested
//! against replies recorded from the MongoDB documentation. (The models'
//! side, [`ShardKey`], is [`shard`](crate::model::shard)'s.)

use std::collections::BTreeMap;

use bson::{doc, Bson, Document};
use futures_util::TryStreamExt;
use mongodb::Client;

use crate::error::{Error, Result};
use crate::model::index::server::same_key_order;
use crate::model::shard::ShardKey;
use crate::setup::step::{Step, Unsharded};

/// The wire version of MongoDB 5.0, the first with `reshardCollection`.
const WIRE_5_0: i32 = 13;
/// The wire version of MongoDB 6.0, the first that shards a collection
/// without `enableSharding` on its database first.
const WIRE_6_0: i32 = 17;

/// What a `hello` reply says of the deployment, for sharding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deployment {
    /// A mongos (`msg: "isdbgrid"`).
    pub(crate) mongos: bool,
    /// `maxWireVersion`: which commands the server knows.
    pub(crate) max_wire_version: i32,
}

impl Deployment {
    /// Reads a `hello` reply.
    pub(crate) fn from_hello(hello: &Document) -> Self {
        let max_wire_version = match hello.get("maxWireVersion") {
            Some(Bson::Int32(n)) => *n,
            Some(Bson::Int64(n)) => i32::try_from(*n).unwrap_or(i32::MAX),
            _ => 0,
        };
        Deployment {
            mongos: hello.get_str("msg").ok() == Some("isdbgrid"),
            max_wire_version,
        }
    }
}

/// Sends `hello` to the admin database.
pub(crate) async fn hello(client: &Client) -> Result<Document> {
    client
        .database("admin")
        .run_command(doc! { "hello": 1 })
        .await
        .map_err(|e| Error::from_server(e, "run hello on", "admin"))
}

/// The `config.collections` entries of `namespaces` (`db.collection`)
/// that are sharded, by namespace; one `find` through the mongos. An entry
/// marked `dropped: true` (kept by servers before 5.0) is not sharded.
pub(crate) async fn sharded_collections(
    client: &Client,
    namespaces: Vec<String>,
) -> Result<BTreeMap<String, Document>> {
    let err = |e| Error::from_server(e, "read the sharded collections of", "config.collections");
    let found: Vec<Document> = client
        .database("config")
        .collection::<Document>("collections")
        .find(doc! { "_id": { "$in": namespaces } })
        .await
        .map_err(err)?
        .try_collect()
        .await
        .map_err(err)?;
    Ok(by_namespace(found))
}

/// The entries of `config.collections` that are sharded, by namespace.
pub(crate) fn by_namespace(entries: Vec<Document>) -> BTreeMap<String, Document> {
    entries
        .into_iter()
        .filter(|entry| !entry.get_bool("dropped").unwrap_or(false))
        .filter_map(|entry| Some((entry.get_str("_id").ok()?.to_owned(), entry)))
        .collect()
}

/// The sharding steps for `wanted` (collection and shard key of each model
/// that declares one) in `database`: on a mongos, shard what is not
/// sharded ([`Step::ShardCollection`]) and report what is sharded on
/// another key ([`Step::ShardKeyDiffers`]); elsewhere, list every such
/// collection as [`Unsharded`].
pub(crate) fn plan(
    database: &str,
    deployment: Deployment,
    wanted: &[(&str, ShardKey)],
    sharded: &BTreeMap<String, Document>,
    actions: &mut Vec<Step>,
    unsharded: &mut Vec<Unsharded>,
) {
    for (collection, key) in wanted {
        let key_doc = key.key_document();
        if !deployment.mongos {
            unsharded.push(Unsharded {
                collection: (*collection).to_owned(),
                key: key_doc,
            });
            continue;
        }
        let namespace = format!("{database}.{collection}");
        match sharded
            .get(&namespace)
            .and_then(|e| e.get_document("key").ok())
        {
            None => actions.push(Step::ShardCollection {
                collection: (*collection).to_owned(),
                namespace,
                key: key_doc,
                enable_sharding: (deployment.max_wire_version < WIRE_6_0)
                    .then(|| database.to_owned()),
            }),
            Some(server) if same_key_order(server, &key_doc) => {}
            Some(server) => {
                let suggested = suggestion(&namespace, server, &key_doc, deployment);
                actions.push(Step::ShardKeyDiffers {
                    collection: (*collection).to_owned(),
                    namespace,
                    server: server.clone(),
                    wanted: key_doc,
                    suggested,
                });
            }
        }
    }
}

/// The command that would move a collection from the shard key `server` to
/// `wanted`: `refineCollectionShardKey` when `wanted` only adds fields after
/// `server`'s, `reshardCollection` otherwise (MongoDB 5.0 and later; before
/// it, none: the collection must be copied to a new one).
fn suggestion(
    namespace: &str,
    server: &Document,
    wanted: &Document,
    deployment: Deployment,
) -> Option<Document> {
    let prefix: Document = wanted
        .iter()
        .take(server.len())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if wanted.len() > server.len() && same_key_order(server, &prefix) {
        Some(doc! { "refineCollectionShardKey": namespace, "key": wanted.clone() })
    } else if deployment.max_wire_version >= WIRE_5_0 {
        Some(doc! { "reshardCollection": namespace, "key": wanted.clone() })
    } else {
        None
    }
}

/// Runs a [`Step::ShardCollection`]'s commands on the admin database. A database whose sharding
/// is already enabled (code 23, `AlreadyInitialized`, on servers before
/// 4.0.3) is fine.
pub(crate) async fn shard(
    client: &Client,
    collection: &str,
    commands: Vec<Document>,
) -> Result<()> {
    let admin = client.database("admin");
    for command in commands {
        let enabling = command.contains_key("enableSharding");
        if let Err(e) = admin.run_command(command).await {
            let already = enabling
                && matches!(&*e.kind, mongodb::error::ErrorKind::Command(c) if c.code == 23);
            if !already {
                return Err(Error::from_server(e, "shard collection", collection));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
