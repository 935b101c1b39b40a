//! How a helper runs: the awaitable action every helper returns
//! ([`action`]), the cursors it drains ([`cursor`]), the server's replies it
//! reads ([`reply`]) and, with the `tracing` feature, its spans ([`trace`]).

pub(crate) mod action;
pub(crate) mod cursor;
pub(crate) mod reply;
#[cfg(feature = "tracing")]
pub(crate) mod trace;
