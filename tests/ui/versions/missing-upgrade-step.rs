use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people")]
struct PersonV1 {
    #[serde(rename = "_id")]
    id: String,
    name: String,
}

// Version 2 declares version 1, but no step from it.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people", migrate_from(PersonV1))]
struct Person {
    #[serde(rename = "_id")]
    id: String,
    first: String,
}

fn main() {}
