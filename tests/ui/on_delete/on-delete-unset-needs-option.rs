use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "teams")]
struct Team {
    #[serde(rename = "_id")]
    id: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "players")]
struct Player {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = Team, on_delete = "unset")]
    team_id: String,
}

fn main() {}
