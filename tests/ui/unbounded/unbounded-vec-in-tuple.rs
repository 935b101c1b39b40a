// A tuple is a fixed-size array: its elements are items, and an array among
// them needs its own sub-document.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "shapes")]
struct Shape {
    #[serde(rename = "_id")]
    id: String,
    outline: (String, Vec<(f64, f64)>),
}

fn main() {}
