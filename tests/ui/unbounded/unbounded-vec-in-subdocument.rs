use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: String,
    email: String,
    profile: Profile,
}

#[derive(Embedded, Serialize, Deserialize)]
struct Profile {
    display_name: String,
    badges: Vec<String>,
}

fn main() {}
