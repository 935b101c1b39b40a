// schema-core is built on bson 3. A type from bson 2 (here through a
// `bson2` dependency; in a user's crate, a `bson = "2"` dependency of their
// own) is another crate's type: it has no `$jsonSchema` description and no
// known bound, and rustc names the two versions of `bson`.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    at: bson2::DateTime,
}

fn main() {}
