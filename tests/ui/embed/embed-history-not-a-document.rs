use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Message {
    text: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "rooms")]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 10, keep = "newest", history = Message)]
    recent: Vec<Message>,
}

fn main() {}
