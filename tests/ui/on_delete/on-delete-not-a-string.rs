use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = User, on_delete = cascade)]
    author_id: String,
}

fn main() {}
