use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "events")]
struct Event {
    #[serde(rename = "_id")]
    id: String,
    payload: bson::Array,
}

fn main() {}
