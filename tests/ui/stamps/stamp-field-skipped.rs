use schema_core::Document;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "accounts", version)]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    #[serde(skip)]
    version: i64,
}

fn main() {}
