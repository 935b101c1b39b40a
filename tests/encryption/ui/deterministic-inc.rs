// The server cannot add to a ciphertext: no update in place.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers")]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(deterministic)]
    balance: i64,
}

fn main() {
    let _ = Customer::FIELDS.balance.inc(&10);
}