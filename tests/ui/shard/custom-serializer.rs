use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

mod as_list {
    pub fn serialize<S: serde::Serializer>(v: &str, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&[v], s)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        let [v]: [String; 1] = serde::Deserialize::deserialize(d)?;
        Ok(v)
    }
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "messages", shard_key(room_id))]
struct Message {
    #[serde(rename = "_id")]
    id: String,
    #[serde(with = "as_list")]
    room_id: String,
}

fn main() {}
