// An array of arrays: `#[embed(max = N)]` would bound the outer one only, so
// the message says from the start that the inner array needs a sub-document.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "teams")]
struct Team {
    #[serde(rename = "_id")]
    id: String,
    groups: Vec<Vec<String>>,
}

fn main() {}
