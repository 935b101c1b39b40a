// `#[embed(max = N)]` bounds an array or map; a `bson::Document` is a
// free-form document (its keys are not the model's), so the message names
// it so and offers what works.
use schema_core::bson;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 10)]
    meta: bson::Document,
    #[embed(max = 10)]
    extra: Option<bson::Bson>,
}

fn main() {}
