use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "readings", timeseries(time = at, meta = sensor), shard_key(sensor))]
struct Reading {
    #[serde(rename = "_id")]
    id: schema_core::bson::oid::ObjectId,
    at: schema_core::bson::DateTime,
    sensor: String,
    value: f64,
}

fn main() {}
