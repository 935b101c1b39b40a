use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// The validator cannot describe what `as_csv` stores, so `maxItems: 3` would
// not be enforced by the server, and `push` would add a string item to what
// the serializer stores as one string.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[serde(with = "as_csv")]
    #[embed(max = 3)]
    tags: Vec<String>,
}

mod as_csv {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(tags: &[String], s: S) -> Result<S::Ok, S::Error> {
        tags.join(",").serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        let csv = String::deserialize(d)?;
        Ok(csv.split(',').map(str::to_owned).collect())
    }
}

fn main() {}
