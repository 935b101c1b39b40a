use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// The server refuses an array `_id`, bounded or not.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    #[embed(max = 2)]
    id: Vec<String>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "pairs")]
struct Pair {
    #[serde(rename = "_id")]
    id: (String, String),
}

fn main() {}
