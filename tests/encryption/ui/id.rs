// The server finds, indexes and shards documents by `_id`: it stays plain.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers")]
struct Customer {
    #[serde(rename = "_id")]
    #[encrypt(deterministic)]
    id: String,
}

fn main() {}