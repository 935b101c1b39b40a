// A random-encrypted field's ciphertext differs every time: nothing to filter on.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers")]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(random)]
    notes: String,
}

fn main() {
    let _ = Customer::FIELDS.notes.eq("likes tea");
}