use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

type Tags = Vec<String>;

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
}

// Mistakes in the attributes (misspelt keys, `max = 0`) and mistakes only
// the compiler can see (an unbounded alias, a reference of the wrong id
// type, even on the field with the misspelt key) are all reported by the
// same build.
#[derive(Document, Serialize, Deserialize)]
#[document(colection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 0)]
    links: Vec<String>,
    tags: Tags,
    #[reference(index, uniqe, to = User)]
    author_id: String,
}

fn main() {}
