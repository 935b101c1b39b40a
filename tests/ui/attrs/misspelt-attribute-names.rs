use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Two misspelt attribute names: the compiler reports each; the derive adds
// no missing `_id` (the `rename` is in the misspelt `serde`), and its error
// on the field left unbounded says which attribute was meant.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[sered(rename = "_id")]
    id: String,
    #[embd(max = 3)]
    tags: Vec<String>,
}

fn main() {}
