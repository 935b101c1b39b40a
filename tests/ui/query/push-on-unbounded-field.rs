// A typed push exists only on an `#[embed(max = N)]` field, where it carries
// the bound's guard: an array kept with `#[embed(unbounded = "...")]` has no
// typed push at all.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "logs")]
struct Log {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 10)]
    recent: Vec<String>,
    #[embed(unbounded = "archived by a nightly job")]
    lines: Vec<String>,
}

fn main() {
    let _ok = Log::FIELDS.recent.push(&"a".to_owned());
    let _ = Log::FIELDS.lines.push(&"a".to_owned());
}
