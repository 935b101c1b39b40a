// Upgrades are written back outside the repository's encryption (for now).
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people")]
struct PersonV1 {
    #[serde(rename = "_id")]
    id: String,
    name: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people", migrate_from(PersonV1))]
struct Person {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(random)]
    first: String,
}

impl schema_core::Upgrade<PersonV1> for Person {
    fn upgrade(old: PersonV1) -> Result<Self, String> {
        Ok(Person { id: old.id, first: old.name })
    }
}

fn main() {}