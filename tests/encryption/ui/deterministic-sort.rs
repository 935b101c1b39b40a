// Ciphertext has no order: no sort on an encrypted field.
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

fn main() {
    let _ = Customer::FIELDS.ssn.asc();
}