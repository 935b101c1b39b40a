use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Embedded, Serialize, Deserialize)]
struct Extra {
    note: String,
}

fn main() {}
