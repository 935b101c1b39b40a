// No query can use an index on a random-encrypted field.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers", index(keys(notes = asc)))]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(random)]
    notes: String,
}

fn main() {}