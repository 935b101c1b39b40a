//! Seed 000, one-to-one and one-to-many: users with an embedded profile,
//! posts that reference their author, with bounded tags.

use schema_core::{Document, Embedded};
use serde::{Deserialize, Serialize};

/// `users`: the profile is embedded (one-to-one, bounded, read together).
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "users")]
pub struct User {
    #[serde(rename = "_id")]
    pub id: String,
    pub email: String,
    pub profile: Profile,
}

/// A sub-document: `#[derive(Embedded)]` checks its own fields are bounded.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub display_name: String,
    pub bio: String,
    pub joined_year: i32,
}

/// `posts`: many per user and growing, so each post points at its author;
/// the reference is indexed `{authorId: 1, at: -1, _id: -1}` for "newest first" pages.
/// A post's tags are few and bounded, so they are embedded.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "posts")]
pub struct Post {
    #[serde(rename = "_id")]
    pub id: String,
    #[reference(index, to = User, sort(at = desc))]
    pub author_id: String,
    pub title: String,
    #[embed(max = 10)]
    pub tags: Vec<String>,
    pub at: schema_core::bson::DateTime,
}
