// A typed push carries the guard `path.N`, which only names one array when
// the path goes through no array: a push into the bounded array of the items
// of an array of sub-documents does not compile.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Line {
    #[embed(max = 5)]
    notes: Vec<String>,
}

#[derive(Embedded, Serialize, Deserialize)]
struct Shipping {
    #[embed(max = 5)]
    notes: Vec<String>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "orders")]
struct Order {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 10)]
    lines: Vec<Line>,
    shipping: Option<Shipping>,
}

fn main() {
    let note = "fragile".to_owned();
    // One sub-document: its array has one path.
    let _ok = Order::FIELDS.shipping.notes.push(&note);
    let _ = Order::FIELDS.lines.notes.push(&note);
}
