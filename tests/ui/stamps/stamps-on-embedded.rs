use schema_core::Embedded;
use serde::{Deserialize, Serialize};

// A sub-document is written through its parent: it keeps no version or times.
#[derive(Embedded, Serialize, Deserialize)]
#[document(version, timestamps)]
struct Line {
    version: i64,
    created_at: bson::DateTime,
    updated_at: bson::DateTime,
}

fn main() {}
