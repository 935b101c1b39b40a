// Models pulled from the data by `schema pull --full --headroom 100 --long 1000`.
// Documents read: agents 20, tickets 300.
// Every comment says what was seen: read them, then adjust the types, the bounds and the names
// before use.

use schema_core::bson::oid::ObjectId;
use schema_core::bson::DateTime;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Every model below, for the schema command (a `src/bin/schema.rs` whose `main` awaits
// `schema_core::cli::run(&models::schema())`) and for `Schema::plan` and `sync`.
pub fn schema() -> schema_core::Schema {
    schema_core::Schema::new().with::<Agent>().with::<Ticket>()
}

// `agents`: 20 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "agents")]
pub struct Agent {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    // mixed types: int 5, long 15: i64 decodes both
    pub level: i64,
    pub name: String,
}

// `tickets`: 300 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "tickets", index(keys(assignee_id = asc, created = desc)))]
pub struct Ticket {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    // holds `agents` ids (20 of 20 looked up found); an index leads with it; not declared:
    // `#[reference(index, to = Agent)]` would need an index of its own (`{assignee_id: 1, _id: 1}`,
    // ties ordered for pages) beside the server's `assignee_id_1_created_-1`; declare it when you
    // want its pages (`sync` then creates that index), or as `#[reference(index, to = Agent,
    // sort(created = desc))]`, whose index `{assignee_id: 1, created: -1, _id: -1}` replaces
    // `assignee_id_1_created_-1`: remove the `index(..)` above, `sync`, then drop
    // `assignee_id_1_created_-1`
    pub assignee_id: ObjectId,
    pub created: DateTime,
    // mixed types: int 100, double 200: f64 decodes them all
    pub hours: f64,
    // mixed types: int 150, long 120: i64 decodes both
    // missing in 30 of 300
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    pub subject: String,
}
