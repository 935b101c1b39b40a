use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "authors")]
struct Author {
    #[serde(rename = "_id")]
    id: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "fans")]
struct FanV1 {
    #[serde(rename = "_id")]
    id: String,
    name: String,
}

// Deleting an author would `$set` (or `$unset`) the reference in fans
// stored at any version.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "fans", migrate_from(FanV1))]
struct Fan {
    #[serde(rename = "_id")]
    id: String,
    first: String,
    #[reference(index, to = Author, on_delete = "set_null")]
    favourite: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[reference(index, to = Author, on_delete = "unset")]
    follows: Option<String>,
    // Works: the delete refuses, or removes the whole fan.
    #[reference(index, to = Author, on_delete = "cascade")]
    member_of: String,
}

impl schema_core::Upgrade<FanV1> for Fan {
    fn upgrade(old: FanV1) -> Result<Self, String> {
        Ok(Fan { id: old.id, first: old.name, favourite: None, follows: None, member_of: String::new() })
    }
}

fn main() {}
