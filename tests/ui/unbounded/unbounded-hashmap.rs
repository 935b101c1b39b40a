use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

use std::collections::HashMap;

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "accounts")]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    settings: HashMap<String, String>,
}

fn main() {}
