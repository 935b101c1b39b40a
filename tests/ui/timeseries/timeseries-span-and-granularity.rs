// span and granularity size the buckets two ways: the server refuses both.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "r", timeseries(time = at, granularity = "hours", span = 3600))]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    sensor: String,
    at: DateTime,
    celsius: f64,
}

fn main() {}
