use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "sessions",
    index(keys(user_id = asc, at = asc), expire_after = 3600))]
struct Session {
    #[serde(rename = "_id")]
    id: String,
    user_id: String,
    at: bson::DateTime,
}

fn main() {}
