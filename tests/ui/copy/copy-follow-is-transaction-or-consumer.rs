use bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "skus")]
struct Sku {
    #[serde(rename = "_id")]
    id: ObjectId,
    color: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "products")]
struct Product {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[reference(index, to = Sku)]
    main_sku: ObjectId,
    #[copy(from = main_sku, field = color, follow = "later")]
    color: String,
    #[copy(from = main_sku, field = color, follow = consumer)]
    also_color: String,
}

fn main() {}
