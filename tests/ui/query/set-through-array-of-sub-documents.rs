// A path through an array of sub-documents names a field of every item: the
// server refuses `{$set: {"trips.km": 5}}` (code 28), so no typed update
// (`set`, `inc`, `min`, `current_date`, `unset`, a whole-array `set`) takes
// one. A path through one sub-document still does.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Trip {
    #[serde(rename = "km")]
    distance_km: i32,
    ended: Option<bson::DateTime>,
    #[embed(max = 3)]
    stops: Vec<String>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "vehicles")]
struct Vehicle {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 4)]
    trips: Vec<Trip>,
    last: Option<Trip>,
}

fn main() {
    let f = Vehicle::FIELDS;
    let _ok = f.last.distance_km.set(&5) & f.last.stops.set(&vec![]);
    let _ = f.trips.distance_km.set(&5);
    let _ = f.trips.distance_km.inc(&1);
    let _ = f.trips.distance_km.min(&1);
    let _ = f.trips.ended.current_date();
    let _ = f.trips.ended.unset();
    let _ = f.trips.stops.set(&vec![]);
}
