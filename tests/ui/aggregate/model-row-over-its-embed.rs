// A row that is a model keeps its arrays within the model's bound: an
// accumulator's `max` above the field's `#[embed(max = N)]` does not
// compile, and the message says which `max` to lower.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "orders")]
struct Order {
    #[serde(rename = "_id")]
    id: String,
    customer_id: String,
    total: f64,
}

#[derive(Document, Row, Serialize, Deserialize)]
#[document(collection = "largest_orders")]
#[row(of = Order)]
struct Largest {
    #[serde(rename = "_id")]
    #[group(key = customer_id)]
    id: String,
    #[embed(max = 3)]
    #[group(top = total, by(total = desc), max = 10)]
    totals: Vec<f64>,
}

fn main() {}
