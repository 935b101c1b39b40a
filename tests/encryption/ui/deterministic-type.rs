// Deterministic encryption takes values whose equal values have one BSON form.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers")]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(deterministic)]
    vip: bool,
    #[encrypt(deterministic)]
    score: f64,
    #[encrypt(random)]
    rating: f64,
}

fn main() {}
