// A free-form document is named as one; `#[embed(max = N)]` is not offered,
// since it cannot bound what the document holds.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "events")]
struct Event {
    #[serde(rename = "_id")]
    id: String,
    attributes: bson::Document,
}

fn main() {}
