// Ciphertext has no order: a deterministic field takes equality only.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers")]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(deterministic)]
    age: i32,
}

fn main() {
    let _ = Customer::FIELDS.age.gt(&18);
}