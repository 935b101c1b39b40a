use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "articles", index(keys(title = "text"), default_language = "englsh"))]
struct Article {
    #[serde(rename = "_id")]
    id: String,
    title: String,
}

fn main() {}
