// The count and seq are i32 or i64, which the server can $inc and compare.
use schema_core::bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Message {
    text: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "b", bucket(parent = room, items = messages, count = count, seq = seq))]
struct Bucket {
    #[serde(rename = "_id")]
    id: ObjectId,
    room: String,
    seq: String,
    count: f64,
    #[embed(max = 10)]
    messages: Vec<Message>,
}

fn main() {}
