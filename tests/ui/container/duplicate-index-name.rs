use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts",
    index(keys(title = asc), name = "lookup"),
    index(keys(slug = asc), name = "lookup"))]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    slug: String,
}

fn main() {}
