// A bucket's items go in through `Buckets::push`, which keeps the count and
// opens the next bucket: a typed update of the items array would bypass
// both, so it does not compile.
use schema_core::bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Clone)]
struct Message {
    text: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "b", bucket(parent = room, items = messages, count = count, seq = seq))]
struct RoomBucket {
    #[serde(rename = "_id")]
    id: ObjectId,
    room: String,
    seq: i64,
    count: i64,
    #[embed(max = 50)]
    messages: Vec<Message>,
    title: Option<String>,
}

fn main() {
    let f = RoomBucket::FIELDS;
    let hello = Message { text: "hello".to_owned() };
    // Works: filters on the items, and updates of the other fields.
    let _ = f.messages.text.eq("hello");
    let _ = f.title.set("general");
    let _ = f.messages.push(&hello);
    let _ = f.messages.set(&vec![hello.clone()]);
    let db: schema_core::mongodb::Database = unimplemented!();
    let _ = Repo::<RoomBucket>::new(&db).embed(f.messages);
}
