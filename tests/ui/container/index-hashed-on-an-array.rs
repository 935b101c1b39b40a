use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "rooms", index(keys(tags = hashed)))]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 8)]
    tags: Vec<String>,
}

fn main() {}
