use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts",
    index(unique))]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    at: i64,
}

fn main() {}
