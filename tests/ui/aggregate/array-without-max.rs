// Every array is bounded: an array accumulator without `max` does not
// compile, and the message says to add it.
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
    #[group(push = total)]
    totals: Vec<f64>,
}

fn main() {}
