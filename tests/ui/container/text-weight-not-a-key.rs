use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "articles", index(keys(title = "text"), weights(body = 2)))]
struct Article {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    body: String,
}

fn main() {}
