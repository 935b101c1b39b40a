use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "rooms", index(keys(owner = hashed), unique))]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    owner: String,
}

fn main() {}
