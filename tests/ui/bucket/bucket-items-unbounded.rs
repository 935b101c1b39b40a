// The items need #[embed(max = N)]: N is the bucket's size.
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
    #[embed(unbounded = "grows")]
    messages: Vec<Message>,
}

fn main() {}
