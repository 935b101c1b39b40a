use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "audits")]
struct Audit {
    #[serde(rename = "_id")]
    id: String,
    history: Option<Box<Vec<String>>>,
}

fn main() {}
