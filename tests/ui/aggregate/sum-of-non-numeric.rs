// `sum` and `avg` take a numeric field: a sum of a `String` field does
// not compile, spanned on the operand, saying which types it takes.
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
    #[group(sum = status)]
    total: f64,
}

fn main() {}
