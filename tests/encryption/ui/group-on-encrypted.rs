// A group key or accumulator reads the stored value, which for an
// encrypted field is ciphertext.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "patients", index(keys(ssn = asc)))]
struct Patient {
    #[serde(rename = "_id")]
    id: String,
    clinic: String,
    #[encrypt(deterministic)]
    ssn: String,
}

#[derive(Row, Deserialize)]
#[row(of = Patient)]
struct PerSsn {
    #[group(key = ssn)]
    ssn: String,
    #[group(count)]
    visits: i64,
}

fn main() {}
