use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people")]
struct PersonV1 {
    #[serde(rename = "_id")]
    id: String,
    name: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people")]
struct PersonV2 {
    #[serde(rename = "_id")]
    id: String,
    name: String,
}

// Two earlier shapes need versions below the current one: 3 at least.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people", schema_version = 2, migrate_from(PersonV1, PersonV2))]
struct Person {
    #[serde(rename = "_id")]
    id: String,
    first: String,
}

fn main() {}
