//! A model in three versions, shared by `tests/it/versions.rs` and
//! `benches/versions.rs`: version 1 `{_id, name}`, version 2 the name split,
//! version 3 (current) with a required email made from the name.

use schema_core::prelude::*;
use schema_core::Upgrade;
use serde::{Deserialize, Serialize};

/// Version 1: one name.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "people")]
pub struct PersonV1 {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
}

/// Version 2: the name split.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "people")]
pub struct PersonV2 {
    #[serde(rename = "_id")]
    pub id: String,
    pub first: String,
    pub last: String,
}

/// Version 3, current: a required email.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "people", migrate_from(PersonV1, PersonV2))]
pub struct Person {
    #[serde(rename = "_id")]
    pub id: String,
    pub first: String,
    pub last: String,
    pub email: String,
}

impl Upgrade<PersonV1> for PersonV2 {
    fn upgrade(old: PersonV1) -> Result<Self, String> {
        let (first, last) = old
            .name
            .split_once(' ')
            .ok_or_else(|| "the name has no space to split it at".to_owned())?;
        Ok(PersonV2 {
            id: old.id,
            first: first.into(),
            last: last.into(),
        })
    }
}

impl Upgrade<PersonV2> for Person {
    fn upgrade(old: PersonV2) -> Result<Self, String> {
        let email = format!("{}.{}@example.org", old.first, old.last).to_lowercase();
        Ok(Person {
            id: old.id,
            first: old.first,
            last: old.last,
            email,
        })
    }
}
