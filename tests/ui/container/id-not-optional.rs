use bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// `None` would be stored as `_id: null`; the second such insert fails with
// a duplicate key error.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: Option<ObjectId>,
    title: String,
}

fn main() {}
