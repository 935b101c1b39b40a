use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Point {
    #[serde(rename = "type")]
    kind: String,
    coordinates: [f64; 2],
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "places", index(keys(location = "2dsphere", name = asc)))]
struct Place {
    #[serde(rename = "_id")]
    id: String,
    name: String,
    location: Point,
}

fn main() {}
