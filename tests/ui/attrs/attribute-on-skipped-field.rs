use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[serde(skip)]
    #[embed(max = 10)]
    cache: Vec<String>,
}

fn main() {}
