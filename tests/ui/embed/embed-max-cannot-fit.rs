use std::collections::HashMap;

use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Even items that encode to nothing but their element header cannot fit
// this many in 16 MiB. The largest `max` that could fit is accepted.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 1_000_000_000)]
    tags: Vec<Option<bool>>,
    #[embed(max = 4_000_000)]
    counts: HashMap<String, Option<bool>>,
    #[embed(max = 1_987_591)]
    flags: Vec<Option<bool>>,
}

fn main() {}
