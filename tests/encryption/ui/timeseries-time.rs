// The server orders and buckets measurements by their time.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "readings", timeseries(time = at, meta = sensor))]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    sensor: String,
    #[encrypt(random)]
    at: DateTime,
}

fn main() {}