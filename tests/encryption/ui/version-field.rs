// Every update increments the version on the server.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers", version)]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(deterministic)]
    version: i64,
}

fn main() {}