// Models pulled from the data by `schema pull --full --headroom 100 --long 1000`.
// Documents read: rooms 31.
// Every comment says what was seen: read them, then adjust the types, the bounds and the names
// before use.
// An array that looks unbounded has no bound on purpose: these models do not compile until each one
// is bounded or moved out.

use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Every model below, for the schema command (a `src/bin/schema.rs` whose `main` awaits
// `schema_core::cli::run(&models::schema())`) and for `Schema::plan` and `sync`.
pub fn schema() -> schema_core::Schema {
    schema_core::Schema::new().with::<Room>()
}

// `rooms`: 31 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "rooms")]
pub struct Room {
    #[serde(rename = "_id")]
    pub id: String,
    // lengths: max 2,089, p50 5, p99 2,089, 31 arrays seen
    // looks unbounded: 2,089 items in one document; so no bound is declared and this model does not
    // compile until you decide: bound it (`#[embed(max = N)]`, pushes refused past N), or move the
    // items out into a collection of their own, each pointing at its parent (`#[reference(index)]`:
    // the move of an embedded array into its own collection)
    pub messages: Vec<Message>,
}

// At `messages`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Message {
    pub n: i32,
    pub text: String,
}
