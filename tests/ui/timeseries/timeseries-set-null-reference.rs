// A reference that a delete of its parent sets to null (or unsets) would
// be written in measurements, which the server refuses by `_id` (code 72):
// a time series' references use cascade or restrict, the meta field's too.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "sites")]
struct Site {
    #[serde(rename = "_id")]
    id: ObjectId,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "r", timeseries(time = at, meta = sensor))]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[reference(index, to = Site, on_delete = "set_null")]
    site: Option<ObjectId>,
    at: DateTime,
    #[reference(index, to = Site, on_delete = "set_null")]
    sensor: Option<ObjectId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[reference(index, to = Site, on_delete = "unset")]
    backup_site: Option<ObjectId>,
    // Works: the delete removes the measurements, or refuses.
    #[reference(index, to = Site, on_delete = "cascade")]
    owner: ObjectId,
    #[reference(index, to = Site, on_delete = "restrict")]
    station: ObjectId,
}

fn main() {}
