use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct User {
    name: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = User)]
    author_id: String,
}

fn main() {}
