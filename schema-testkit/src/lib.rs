//! What the tests, examples and benchmarks of the workspace share, kept out
//! of `schema-core` so that the library users depend on holds no test code:
//!
//! - [`server`]: connecting to `MONGODB_URI`, or starting an embedded
//!   `secantusd-rs` on a free port (and stopping or killing it);
//! - [`counting_client`]: a client whose commands are recorded in a
//!   [`CommandLog`] (the one command counter of the tests, examples and
//!   benchmarks);
//! - [`failpoint`]: the server's `failCommand` failpoint, scoped to one client;
//! - [`models`]: the seed models the integration tests share;
//! - [`stats`]: medians and the p10-p90 spread of per-round ratios, for the
//!   benchmarks;
//! - [`unified`]: the unified test format's matching rules, for replays of
//!   the drivers' specification scenarios.
#![warn(missing_docs)]

pub mod command_log;
pub mod failpoint;
pub mod latency;
#[allow(missing_docs)] // test models: their doc comments say what each seed is
pub mod models;
pub mod server;
pub mod stats;
pub mod unified;

pub use command_log::{counting_client, counting_client_with, tally, CommandLog, Failure, Sent};
