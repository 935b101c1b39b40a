use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

use std::collections::VecDeque;

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "feeds")]
struct Feed {
    #[serde(rename = "_id")]
    id: String,
    events: VecDeque<String>,
}

fn main() {}
