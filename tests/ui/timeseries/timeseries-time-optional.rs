// Every measurement needs its time: an Option is refused.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "r", timeseries(time = at))]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    at: Option<DateTime>,
}

fn main() {}
