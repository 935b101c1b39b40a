use bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: ObjectId,
    name: String,
}

type UserId = ObjectId;

// A reference holds the target's `_id` type, or `Option` of it: `author_id`
// and `editor_id` are refused; `reviewer_id` (an alias of the right type)
// and `approver_id` (a child that may have no approver) are accepted.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[reference(index, to = User)]
    author_id: String,
    #[reference(index, to = User)]
    editor_id: Option<String>,
    #[reference(index, to = User)]
    reviewer_id: UserId,
    #[reference(index, to = User)]
    approver_id: Option<ObjectId>,
}

fn main() {}
