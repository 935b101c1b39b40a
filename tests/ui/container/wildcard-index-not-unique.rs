use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "products", index(keys("attrs.$**" = asc), unique))]
struct Product {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 20)]
    attrs: std::collections::BTreeMap<String, String>,
}

fn main() {}
