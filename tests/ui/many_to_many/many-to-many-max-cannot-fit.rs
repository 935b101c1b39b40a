use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(one_sided, to = User, max = 4_000_000_000)]
    follows: Vec<String>,
}

fn main() {}
