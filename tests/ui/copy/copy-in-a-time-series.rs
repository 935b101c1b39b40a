use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "sensors")]
struct Sensor {
    #[serde(rename = "_id")]
    id: String,
    site: String,
}

#[derive(Document, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[document(collection = "readings", timeseries(time = at, meta = sensor_id, granularity = "seconds"))]
struct Reading {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    at: bson::DateTime,
    #[reference(index, to = Sensor)]
    sensor_id: String,
    #[copy(from = sensor_id, field = site)]
    site: String,
}

fn main() {}
