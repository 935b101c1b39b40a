// Models pulled from the data by `schema pull --full --headroom 100 --long 1000`.
// Documents read: messy 100,000.
// Every comment says what was seen: read them, then adjust the types, the bounds and the names
// before use.

use schema_core::bson::{Bson, DateTime};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Every model below, for the schema command (a `src/bin/schema.rs` whose `main` awaits
// `schema_core::cli::run(&models::schema())`) and for `Schema::plan` and `sync`.
pub fn schema() -> schema_core::Schema {
    schema_core::Schema::new().with::<Messy>()
}

// `messy`: 100,000 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "messy")]
pub struct Messy {
    #[serde(rename = "_id")]
    pub id: i64,
    // missing in 99,000 of 100,000
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra: Option<Extra>,
    pub meta: Meta,
    // mixed types: int 25,000, long 25,000, double 25,000, string 25,000: only Bson decodes them
    // all
    #[embed(unbounded = "mixed types: a Bson decodes them all")]
    pub n: Bson,
    // missing in 14,286 of 100,000
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    // lengths: max 4, p50 2, p99 4, 33,334 arrays seen
    // missing in 33,333 of 100,000, null in 33,333
    #[serde(skip_serializing_if = "Option::is_none")]
    #[embed(max = 10)]
    pub tags: Option<Vec<String>>,
}

// At `extra`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Extra {
    pub flag: bool,
}

// At `meta`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Meta {
    pub a: A,
}

// At `meta.a`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct A {
    pub b: B,
}

// At `meta.a.b`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct B {
    pub c: C,
}

// At `meta.a.b.c`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct C {
    pub d: i32,
    pub when: DateTime,
}
