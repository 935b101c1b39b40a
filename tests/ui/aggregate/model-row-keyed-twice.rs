// A row that is a model is one of its documents, keyed by its `_id`
// alone: a second group key does not compile, and neither does a model
// row whose `_id` is no key.
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
}

#[derive(Document, Row, Serialize, Deserialize)]
#[document(collection = "per_status")]
#[row(of = Order)]
struct PerStatus {
    #[serde(rename = "_id")]
    #[group(key = customer_id)]
    id: String,
    #[group(key = status)]
    status: String,
    #[group(sum = total)]
    total: f64,
}

#[derive(Document, Row, Serialize, Deserialize)]
#[document(collection = "totals")]
#[row(of = Order)]
struct Totals {
    #[serde(rename = "_id")]
    #[group(first = customer_id)]
    id: String,
    #[group(sum = total)]
    total: f64,
}

fn main() {}
