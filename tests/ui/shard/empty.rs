use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "messages", shard_key())]
struct Message {
    #[serde(rename = "_id")]
    id: String,
}

fn main() {}
