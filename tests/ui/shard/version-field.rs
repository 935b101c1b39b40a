use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "messages", version, shard_key(version))]
struct Message {
    #[serde(rename = "_id")]
    id: String,
    version: i64,
}

fn main() {}
