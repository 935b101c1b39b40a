// A serde value serde cannot read (`camelcase` is not a casing): serde's
// error alone, none of ours (no unimplemented `Serialize`/`Deserialize`).
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize)]
#[serde(rename_all = "camelcase")]
struct Profile {
    display_name: String,
}

#[derive(Document, Serialize, Deserialize)]
#[serde(rename_all = "camelcase")]
#[document(collection = "users", index(keys(display_name = asc)))]
struct User {
    #[serde(rename = "_id")]
    id: String,
    display_name: String,
    #[embed(max = 5)]
    tags: Vec<String>,
    profile: Profile,
}

fn main() {}
