use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people")]
struct PersonV1 {
    #[serde(rename = "_id")]
    id: String,
    name: String,
}

// Its own migration done, kept as the shape of its version: but its place
// in `migrate_from` makes it version 2, not 3.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people", schema_version = 3)]
struct PersonV2 {
    #[serde(rename = "_id")]
    id: String,
    first: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people", migrate_from(PersonV1, PersonV2))]
struct Person {
    #[serde(rename = "_id")]
    id: String,
    first: String,
    email: String,
}

impl schema_core::Upgrade<PersonV1> for PersonV2 {
    fn upgrade(old: PersonV1) -> Result<Self, String> {
        Ok(PersonV2 { id: old.id, first: old.name })
    }
}

impl schema_core::Upgrade<PersonV2> for Person {
    fn upgrade(old: PersonV2) -> Result<Self, String> {
        let email = format!("{}@example.org", old.first);
        Ok(Person { id: old.id, first: old.first, email })
    }
}

fn main() {}
