// The parent is one value: a bucket of no parent, or of several, is refused.
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
    room: Option<String>,
    seq: i64,
    count: i64,
    #[embed(max = 10)]
    messages: Vec<Message>,
}

fn main() {}
