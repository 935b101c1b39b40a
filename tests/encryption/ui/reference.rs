// A reference is matched against the other model's plain `_id`.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "orders")]
struct Order {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index)]
    #[encrypt(deterministic)]
    customer_id: String,
}

fn main() {}