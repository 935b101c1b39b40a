// Seed 000's chat room: every message `$push`-ed into the room's document.
// Messages per room have no natural maximum, so the array has no bound.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "rooms")]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    messages: Vec<Message>,
}

#[derive(Embedded, Serialize, Deserialize)]
struct Message {
    n: i64,
    text: String,
}

fn main() {}
