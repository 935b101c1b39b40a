use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "members", shard_key(team_id), index(keys(email = asc), unique))]
struct Member {
    #[serde(rename = "_id")]
    id: String,
    team_id: String,
    email: String,
}

fn main() {}
