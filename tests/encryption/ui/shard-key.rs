// The cluster routes documents by the shard key's plain value.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers", shard_key(region))]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(deterministic)]
    region: String,
}

fn main() {}