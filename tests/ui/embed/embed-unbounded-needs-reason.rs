use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "imports")]
struct Import {
    #[serde(rename = "_id")]
    id: String,
    #[embed(unbounded = "")]
    raw: bson::Document,
    #[embed(max = 10, unbounded = "legacy")]
    tags: Vec<String>,
}

fn main() {}
