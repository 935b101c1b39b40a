// A `bson::Bson` can hold an array of any length: refused like a
// `bson::Document`, in a document and in a sub-document.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "events")]
struct Event {
    #[serde(rename = "_id")]
    id: String,
    payload: bson::Bson,
    meta: Meta,
}

#[derive(Embedded, Serialize, Deserialize)]
struct Meta {
    extra: Option<bson::Bson>,
}

fn main() {}
