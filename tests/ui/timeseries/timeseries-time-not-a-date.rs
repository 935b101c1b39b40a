// The time field is a stored bson::DateTime, and the named fields exist.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "r", timeseries(time = taken, meta = probe))]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    sensor: String,
    taken: String,
    celsius: f64,
}

fn main() {}
