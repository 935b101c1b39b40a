use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "members",
    index(keys(email = asc), unique, collation = "en"))]
struct Member {
    #[serde(rename = "_id")]
    id: String,
    email: String,
}

fn main() {}
