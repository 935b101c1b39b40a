// The server does not update a measurement: typed updates, update helpers and bounded pushes do not compile.
use schema_core::bson::{oid::ObjectId, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "r", timeseries(time = at, meta = sensor))]
struct Reading {
    #[serde(rename = "_id")]
    id: ObjectId,
    sensor: String,
    at: DateTime,
    celsius: f64,
    #[embed(max = 4)]
    tags: Vec<String>,
}

fn doc() -> schema_core::bson::Document {
    schema_core::bson::Document::new()
}

fn main() {
    let f = Reading::FIELDS;
    let _ = f.celsius.set(&1.0);
    let _ = f.tags.push(&"x".to_owned());
    let db: schema_core::mongodb::Database = unimplemented!();
    let repo = Repo::<Reading>::new(&db);
    let _ = repo.update(&ObjectId::new(), doc());
    let _ = repo.embed(f.tags);
}
