//! The tests that stop, kill or restart processes: servers of their own
//! (killed with SIGKILL, stopped and started again on the same data), a
//! migration killed mid-run in a child process, and `failCommand` faults at
//! every step of the helpers' transactions. One binary, apart from the
//! shared-server suite in `tests/it`, so that no outage, kill or load of
//! theirs reaches the tests there; the server of [`support`] is shared by
//! the tests here that need no server of their own.
//!
//! `cargo test --test reliability`; the measurements that are not run by
//! default: `cargo test --test reliability -- --ignored --nocapture`.

#[path = "../models/mod.rs"]
mod models;
#[path = "../support/mod.rs"]
mod support;

mod adopt_move_kill;
mod dead_holder;
mod draw;
mod faults;
mod kill;
mod outage_retry;
mod restart;
mod versions_kill;
mod watch;
mod watch_consumer;
