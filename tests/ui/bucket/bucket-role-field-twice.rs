// A field plays one role: count and seq must be two fields.
use schema_core::bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Message {
    text: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "b", bucket(parent = room, items = messages, count = n, seq = n))]
struct Bucket {
    #[serde(rename = "_id")]
    id: ObjectId,
    room: String,
    n: i64,
    #[embed(max = 10)]
    messages: Vec<Message>,
}

fn main() {}
