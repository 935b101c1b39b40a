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
#[document(collection = "people")]
struct PersonV2 {
    #[serde(rename = "_id")]
    id: String,
    first: String,
}

// Steps from 1 to 2 and from 2 to 3 are needed; only the last is written.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "people", migrate_from(PersonV1, PersonV2))]
struct Person {
    #[serde(rename = "_id")]
    id: String,
    first: String,
}

impl schema_core::Upgrade<PersonV2> for Person {
    fn upgrade(old: PersonV2) -> Result<Self, String> {
        Ok(Person { id: old.id, first: old.first })
    }
}

fn main() {}
