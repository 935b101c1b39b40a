// A projection's field has the model field's type: a view that would
// decode the stored value as another type does not compile.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    views: i64,
}

#[derive(Projection, Deserialize)]
#[projection(of = Post)]
struct Counter {
    title: String,
    views: String,
}

fn main() {}
