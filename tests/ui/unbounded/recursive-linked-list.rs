// A sub-document that holds itself has no bounded depth.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
struct Step {
    label: String,
    next: Option<Box<Self>>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "plans")]
struct Plan {
    #[serde(rename = "_id")]
    id: String,
    first: Step,
}

fn main() {}
