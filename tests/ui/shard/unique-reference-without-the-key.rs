use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "profiles", shard_key(region))]
struct Profile {
    #[serde(rename = "_id")]
    id: String,
    region: String,
    #[reference(index, unique)]
    user_id: String,
}

fn main() {}
