// `avg` gives a double: a row field of another type does not compile,
// spanned on its type, saying what to declare.
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
    #[group(avg = total)]
    average: i64,
}

fn main() {}
