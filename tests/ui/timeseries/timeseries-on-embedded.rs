// timeseries belongs to a root document.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
#[document(timeseries(time = at))]
struct Reading {
    at: DateTime,
    celsius: f64,
}

fn main() {}
