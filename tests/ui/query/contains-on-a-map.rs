// `contains`, `contains_all` and `elem_match` test the items of an array: on
// a map (stored as a sub-document, not an array) they would compare the
// whole sub-document and silently match nothing, so they do not exist.
use std::collections::BTreeMap;

use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "products")]
struct Product {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 10)]
    colors: Vec<String>,
    #[embed(max = 10)]
    labels: BTreeMap<String, String>,
}

fn main() {
    let red = "red".to_owned();
    let _ok = Product::FIELDS.colors.contains(&red);
    let _ = Product::FIELDS.labels.contains(&red);
}
