// A row is one document: an array of items whose size the framework does
// not know (a `String`) declares the most bytes one takes, `bytes = N`.
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
    #[group(push = status, max = 5)]
    statuses: Vec<String>,
}

fn main() {}
