use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

type Tags = Vec<String>;

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    tags: Tags,
}

fn main() {}
