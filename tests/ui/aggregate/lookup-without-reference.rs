// `lookup` joins through a declared `#[reference(...)]`: a plain field
// holding an id is no way to a parent's collection.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    author_id: String,
}

fn joined(posts: &Repo<Post>) {
    let _ = posts.aggregate().scan().lookup(Post::FIELDS.author_id);
}

fn main() {}
