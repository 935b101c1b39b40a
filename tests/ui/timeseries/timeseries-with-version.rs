// Measurements are not updated: version, timestamps and links are refused.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "r", version, timeseries(time = at))]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    sensor: String,
    at: DateTime,
    celsius: f64,
    version: i64,
    #[many_to_many(one_sided, to = Other)]
    others: Vec<String>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "o")]
struct Other {
    #[serde(rename = "_id")]
    id: String,
}

fn main() {}
