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

#[derive(Embedded, Serialize, Deserialize)]
struct Line {
    sku_id: ObjectId,
    #[snapshot(of = Sku, field = stock)]
    stock_when_sold: f64,
}

fn main() {}
