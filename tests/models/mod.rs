//! The seed models shared by the integration tests: a module of each test
//! binary, `use crate::models;` then `use models::*;`. They live in
//! `schema-testkit` (compiled once, not once per test binary); this module
//! re-exports them.
#[allow(unused_imports)] // each test binary uses some of them
pub use schema_testkit::models::*;
