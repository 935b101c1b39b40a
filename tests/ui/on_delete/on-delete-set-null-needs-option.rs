use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "teams")]
struct Team {
    #[serde(rename = "_id")]
    id: String,
}

// An alias of `Option` is refused too: the derive reads the type as written.
type MaybeTeam = Option<String>;

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "players")]
struct Player {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = Team, on_delete = "set_null")]
    team_id: String,
    #[reference(index, to = Team, on_delete = "set_null")]
    former_team_id: MaybeTeam,
}

fn main() {}
