use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "title")]
    headline: String,
    title: String,
}

fn main() {}
