use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts",
    index(keys(author_id = asc), unique))]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index)]
    author_id: String,
}

fn main() {}
