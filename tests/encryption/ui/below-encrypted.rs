// An encrypted sub-document is one ciphertext: no path below it, to filter or update.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Address {
    city: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers")]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(random)]
    address: Address,
}

fn main() {
    let _ = Customer::FIELDS.address.city.set("Paris");
}