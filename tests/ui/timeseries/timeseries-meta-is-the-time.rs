// The meta field is a field of its own: not the time, not the _id.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "r", timeseries(time = at, meta = at))]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    sensor: String,
    at: DateTime,
    celsius: f64,
}

fn main() {}
