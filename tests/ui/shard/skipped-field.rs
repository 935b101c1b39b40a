use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "messages", shard_key(room_id))]
struct Message {
    #[serde(rename = "_id")]
    id: String,
    #[serde(skip)]
    room_id: String,
}

fn main() {}
