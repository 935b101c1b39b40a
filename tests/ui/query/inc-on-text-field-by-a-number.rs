// `inc` by a number on a text field: the message says the field is not a
// number, and nothing else.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    likes: i64,
    score: Option<f64>,
}

fn main() {
    let f = Post::FIELDS;
    // Works: a number of the field's type.
    let _ = f.likes.inc(&1);
    let _ = f.score.mul(&1.5);
    let _ = f.title.inc(&1);
    let _ = f.title.mul(&2.0);
}
