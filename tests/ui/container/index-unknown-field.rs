use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts",
    index(keys(autor_id = asc)))]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "authorId")]
    author_id: String,
}

fn main() {}
