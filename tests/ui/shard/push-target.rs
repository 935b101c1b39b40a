use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "messages", shard_key(votes))]
struct Message {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 4)]
    votes: std::collections::BTreeMap<String, i32>,
}

fn main() {}
