use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// `Profile` forgot `#[derive(Embedded)]`, so nothing checks its own fields.
#[derive(Serialize, Deserialize)]
struct Profile {
    display_name: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: String,
    email: String,
    profile: Profile,
}

fn main() {}
