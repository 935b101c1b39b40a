use schema_core::Document;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[document(collection = "accounts", timestamps)]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    created_at: String,
    updated_at: Option<bson::DateTime>,
}

fn main() {}
