// `min` of an `Option` field is an `Option`: a row field of the
// inner type does not compile (a group where no document holds a value
// gives `null`).
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "orders")]
struct Order {
    #[serde(rename = "_id")]
    id: String,
    customer_id: String,
    status: String,
    total: f64,
    discount: Option<i64>,
}

#[derive(Row, Deserialize)]
#[row(of = Order)]
struct ByCustomer {
    #[group(key = customer_id)]
    customer_id: String,
    #[group(min = discount)]
    smallest_discount: i64,
}

fn main() {}
