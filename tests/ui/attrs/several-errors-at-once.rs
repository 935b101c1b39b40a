use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Three different mistakes in one struct: all three are reported.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "system.posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    tags: Vec<String>,
    #[embed(max = 0)]
    links: Vec<String>,
}

fn main() {}
