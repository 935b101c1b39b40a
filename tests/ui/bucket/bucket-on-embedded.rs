// bucket belongs to a root document: on a sub-document it is refused.
use schema_core::bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Message {
    text: String,
}

#[derive(Embedded, Serialize, Deserialize)]
#[document(bucket(parent = room, items = messages, count = count, seq = seq))]
struct Bucket {
    room: String,
    seq: i64,
    count: i64,
    #[embed(max = 10)]
    messages: Vec<Message>,
}

fn main() {}
