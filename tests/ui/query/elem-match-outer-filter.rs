// The condition of an `elem_match` names the item's fields (paths relative
// to the item): a filter over the parent document's fields does not fit.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Line {
    sku: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "orders")]
struct Order {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 10)]
    lines: Vec<Line>,
}

fn main() {
    let _ = Order::FIELDS.lines.elem_match(|_| Order::FIELDS.id.eq("o1"));
}
