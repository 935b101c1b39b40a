use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Two misspelt serde keys: serde reports each, and nothing else is reported
// (no missing `_id`, no unimplemented `Serialize`/`Deserialize`).
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(renam = "_id")]
    id: String,
    #[serde(skip_serializing_iff = "Option::is_none")]
    title: Option<String>,
}

fn main() {}
