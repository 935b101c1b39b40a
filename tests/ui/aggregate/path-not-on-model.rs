// A key or operand names a field of the model: a path the model does not
// have does not compile, spanned on it, with the fields it has.
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
    #[group(key = customer)]
    customer_id: String,
    #[group(sum = totl)]
    total: f64,
}

fn main() {}
