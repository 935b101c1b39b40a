// Without schema-core's `encryption` feature, `#[encrypt]` says to turn it on.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers")]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(deterministic)]
    ssn: String,
}

fn main() {}
