// timeseries names its time field.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "r", timeseries(meta = sensor))]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    sensor: String,
    at: DateTime,
    celsius: f64,
}

fn main() {}
