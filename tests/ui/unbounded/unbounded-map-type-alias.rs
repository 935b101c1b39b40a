// A map behind an alias: the trait bound names it as a map.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

type Scores = std::collections::HashMap<String, i32>;

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "games")]
struct Game {
    #[serde(rename = "_id")]
    id: String,
    scores: Scores,
}

fn main() {}
