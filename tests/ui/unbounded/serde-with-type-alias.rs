// A custom serializer stores what it makes from the Rust value: an unbounded
// type behind an alias stays refused.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

type Tags = Vec<String>;

mod as_list {
    pub fn serialize<S: serde::Serializer>(tags: &[String], s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(tags, s)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        serde::Deserialize::deserialize(d)
    }
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[serde(with = "as_list")]
    tags: Tags,
}

fn main() {}
