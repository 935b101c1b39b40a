use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "teams")]
struct Team {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 10)]
    groups: Vec<Vec<String>>,
}

fn main() {}
