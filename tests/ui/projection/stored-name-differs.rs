// A projection's field is stored under the model field's name: a view
// without the model's serde rename would ask for (and read) another key.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    author_name: String,
}

#[derive(Projection, Deserialize)]
#[projection(of = Post)]
struct Byline {
    author_name: String,
}

fn main() {}
