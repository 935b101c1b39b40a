use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// `Item` holds a bare Vec and does not derive `Embedded`: the bound on the
// items of `#[embed(max = N)]` catches it through the trait.
#[derive(Serialize, Deserialize)]
struct Item {
    sku: String,
    notes: Vec<String>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "orders")]
struct Order {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 100)]
    items: Vec<Item>,
}

fn main() {}
