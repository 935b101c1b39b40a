use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// A sub-document is stored inside its parent's collection: an index on it
// has no collection of its own to go to.
#[derive(Embedded, Serialize, Deserialize)]
#[document(index(keys(city = asc)))]
struct Address {
    city: String,
}

fn main() {}
