use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

type Pair = [i64; 2];

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "messages", shard_key(pair))]
struct Message {
    #[serde(rename = "_id")]
    id: String,
    pair: Pair,
}

fn main() {}
