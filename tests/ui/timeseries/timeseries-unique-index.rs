// A time-series collection takes no unique index and no TTL index.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(
    collection = "r",
    timeseries(time = at, meta = sensor),
    index(keys(sensor = asc), unique),
    index(keys(at = asc), expire_after = 60)
)]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    sensor: String,
    at: DateTime,
    celsius: f64,
}

fn main() {}
