use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people", migrate_from())]
struct Person {
    #[serde(rename = "_id")]
    id: String,
    first: String,
}

fn main() {}
