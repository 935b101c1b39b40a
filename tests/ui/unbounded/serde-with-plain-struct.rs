// `serialize_with` on a plain Serialize struct that holds a Vec: the struct is
// not an `Embedded` type, so its fields are not known to be bounded.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct History {
    entries: Vec<String>,
}

fn history_as_is<S: serde::Serializer>(h: &History, s: S) -> Result<S::Ok, S::Error> {
    h.serialize(s)
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "accounts")]
struct Account {
    #[serde(rename = "_id")]
    id: String,
    #[serde(serialize_with = "history_as_is")]
    history: History,
}

fn main() {}
