use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, sort(create_at = desc))]
    author_id: String,
    created_at: bson::DateTime,
}

fn main() {}
