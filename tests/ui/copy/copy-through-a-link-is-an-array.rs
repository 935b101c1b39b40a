use bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "skus")]
struct Sku {
    #[serde(rename = "_id")]
    id: ObjectId,
    color: String,
    stock: i64,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "products")]
struct Product {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[many_to_many(one_sided, to = Sku, max = 10)]
    skus: Vec<ObjectId>,
    #[copy(from = skus, field = color)]
    color: String,
}

fn main() {}
