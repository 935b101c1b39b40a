use bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

type MaybeId = Option<ObjectId>;
type Key = Box<[String; 2]>;

// The derive cannot see through an alias; the generated bound does.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: MaybeId,
    title: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "pairs")]
struct Pair {
    #[serde(rename = "_id")]
    id: Key,
}

fn main() {}
