use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts",
    index(keys(id = asc)))]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    title: String,
}

fn main() {}
