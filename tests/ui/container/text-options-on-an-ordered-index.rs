use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "articles", index(keys(title = asc), weights(title = 2), default_language = "french"))]
struct Article {
    #[serde(rename = "_id")]
    id: String,
    title: String,
}

fn main() {}
