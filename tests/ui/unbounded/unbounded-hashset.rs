use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

use std::collections::HashSet;

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: String,
    followers: HashSet<String>,
}

fn main() {}
