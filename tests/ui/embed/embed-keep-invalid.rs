use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "rooms")]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 10, keep = "latest")]
    recent: Vec<String>,
    #[embed(max = 10, history = Post)]
    older: Vec<String>,
}

fn main() {}
