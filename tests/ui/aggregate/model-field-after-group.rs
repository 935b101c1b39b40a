// After `group::<Row>()` the rows flow: a filter or sort names the row's
// fields (`PerCustomer::FIELDS.spent`), never the model's.
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

#[derive(Row, Deserialize)]
#[row(of = Order)]
struct PerCustomer {
    #[group(key = customer_id)]
    customer_id: String,
    #[group(sum = total)]
    spent: f64,
}

fn big_spenders(orders: &Repo<Order>) {
    let _ = orders
        .aggregate()
        .scan()
        .group::<PerCustomer>()
        .filter(Order::FIELDS.total.gt(&100.0));
}

fn main() {}
