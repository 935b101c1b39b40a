use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "messages", shard_key(tags))]
struct Message {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 4)]
    tags: Vec<String>,
}

fn main() {}
