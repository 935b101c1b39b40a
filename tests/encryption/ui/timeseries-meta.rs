// The server groups measurements by their meta field.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "readings", timeseries(time = at, meta = sensor))]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[encrypt(deterministic)]
    sensor: String,
    at: DateTime,
}

fn main() {}