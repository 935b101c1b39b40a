use schema_core::Document;
use serde::{Deserialize, Serialize};

// `version` names the field `version`; `version = "rev"` the field `rev`.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "accounts", version)]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    balance: i64,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "notes", version = "rev")]
struct Note {
    #[serde(rename = "_id")]
    id: String,
    version: i64,
}

fn main() {}
