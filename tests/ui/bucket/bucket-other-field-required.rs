// The model's other fields are its summary, null in a bucket the framework opens: each must be an Option.
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
    seq: i64,
    count: i64,
    #[embed(max = 10)]
    messages: Vec<Message>,
    topic: String,
    last_text: Option<String>,
}

fn main() {}
