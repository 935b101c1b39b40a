use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "members",
    index(keys(email = asc), unique, collation(locale = "en", strength = 6)))]
struct Member {
    #[serde(rename = "_id")]
    id: String,
    email: String,
}

fn main() {}
