use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "games")]
struct Game {
    #[serde(rename = "_id")]
    id: String,
    scores: BTreeMap<String, i32>,
}

fn main() {}
