// Each role names a field the model has, and every role is named.
use schema_core::bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Message {
    text: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "b", bucket(parent = room, items = msgs, count = count))]
struct Bucket {
    #[serde(rename = "_id")]
    id: ObjectId,
    room: String,
    seq: i64,
    count: i64,
    #[embed(max = 10)]
    messages: Vec<Message>,
}

fn main() {}
