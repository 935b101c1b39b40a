//! The integration tests: one binary, a module per area, one test server
//! for all of them ([`support`]: `MONGODB_URI`, or an embedded server started
//! on first use and stopped when the binary exits), a fresh database per
//! test.
//!
//! Tests that share this server keep out of each other's way: each works in
//! a database of its own (`support::fresh_db`), the `failCommand` failpoint
//! (one per server) is armed only while holding
//! `support::failpoint::FAILPOINT` and only for a client of the test's own
//! `appName`, and a test that needs the process to itself (peak memory) runs
//! in a child process (`support::child_test`). Tests that stop, kill or
//! restart servers are in `tests/reliability`, the spans of the `tracing`
//! feature in `tests/tracing_spans.rs`, the compile-fail cases in `tests/ui`.
//!
//! `cargo test --test it`, or one area: `cargo test --test it -- validator::`.

#[path = "../../examples/models/mod.rs"]
mod example_models;
#[path = "../models/mod.rs"]
mod models;
#[path = "../models/people.rs"]
mod people;
#[path = "../support/mod.rs"]
mod support;

mod adopt;
mod aggregate;
mod bad_input;
mod buckets;
mod copies;
mod delete_policies;
mod derive;
mod embed;
#[cfg(feature = "encryption")]
mod encryption;
mod examples_name_reexports;
mod find;
mod index_guard;
mod indexes;
mod joins;
mod layers;
mod many_to_many;
mod paging;
mod repo;
mod schema;
mod schema_command;
mod security;
mod send;
mod service;
mod setup;
mod sharding;
mod srv_uri;
mod testkit;
mod timeseries;
mod txn;
mod typed;
mod validator;
mod versions;
mod versions_and_timestamps;
mod watch;
mod writes;
