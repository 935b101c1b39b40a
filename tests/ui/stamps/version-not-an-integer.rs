use schema_core::Document;
use serde::{Deserialize, Serialize};

type Revision = u64;

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "accounts", version)]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    version: String,
}

// An alias is judged by the type it names.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "notes", version = "rev")]
struct Note {
    #[serde(rename = "_id")]
    id: String,
    rev: Revision,
}

fn main() {}
