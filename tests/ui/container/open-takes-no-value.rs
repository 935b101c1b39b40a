use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// `open` is a flag: the validator then admits undeclared fields.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts", open = true)]
struct Post {
    #[serde(rename = "_id")]
    id: String,
}

fn main() {}
