// A shard key names fields by their Rust name: a stored name, or a name
// short of the field's, is met with the field's Rust name.
use schema_core::bson::DateTime;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "events", shard_key(tenant, d))]
struct Event {
    #[serde(rename = "_id")]
    id: String,
    tenant_id: String,
    #[serde(rename = "d")]
    day: DateTime,
}

fn main() {}
