// The bucket helpers find a parent's buckets by the parent's plain id.
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
    #[encrypt(deterministic)]
    room: String,
    seq: i64,
    count: i32,
    #[embed(max = 10)]
    messages: Vec<Message>,
}

fn main() {}