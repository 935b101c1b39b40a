use schema_core::bson;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

/// `users`: one document per user; the profile is embedded (read together).
#[derive(Document, Serialize, Deserialize, Clone, Debug)]
#[document(collection = "users", index(keys(email = asc), unique))]
pub struct User {
    #[serde(rename = "_id")]
    pub id: String,
    pub email: String,
    pub profile: Profile,
}

/// A sub-document: its own fields are checked like a document's.
#[derive(Embedded, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub display_name: String,
    pub joined_year: i32,
}

/// `posts`: a user has many, so each post points at its author.
#[derive(Document, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
#[document(collection = "posts")]
pub struct Post {
    #[serde(rename = "_id")]
    pub id: String,
    #[reference(index, to = User, sort(at = desc))] // index {authorId: 1, at: -1, _id: -1}
    pub author_id: String,
    #[embed(max = 10)] // validator: maxItems 10; a push stops at 10
    pub tags: Vec<String>,
    pub title: String,
    pub at: bson::DateTime,
}
