// One algorithm, named: deterministic or random.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "customers")]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt]
    ssn: String,
    #[encrypt(determinstic)]
    phone: String,
    #[encrypt(deterministic, random)]
    email: String,
}

fn main() {}