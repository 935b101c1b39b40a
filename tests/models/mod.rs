//! The seed models shared by the integration tests: `mod models;` then
//! `use models::*;`. They live in `schema-testkit` (compiled once, not once
//! per test binary); this re-export keeps `mod models;` working.
#[allow(unused_imports)] // each test binary uses some of them
pub use schema_testkit::models::*;
