use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
#[embed(max = 3)]
struct Post {
    #[serde(rename = "_id")]
    id: String,
}

fn main() {}
