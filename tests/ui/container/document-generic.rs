use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "boxes")]
struct Boxed<T> {
    #[serde(rename = "_id")]
    id: String,
    value: T,
}

fn main() {}
