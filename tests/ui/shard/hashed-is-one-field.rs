use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "messages", shard_key(hashed(room_id), n))]
struct Message {
    #[serde(rename = "_id")]
    id: String,
    room_id: String,
    n: i64,
}

fn main() {}
