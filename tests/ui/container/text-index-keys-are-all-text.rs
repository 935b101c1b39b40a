use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "articles", index(keys(title = "text", at = desc)))]
struct Article {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    at: i64,
}

fn main() {}
