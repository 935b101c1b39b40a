use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(colection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
}

fn main() {}
