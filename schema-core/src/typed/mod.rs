//! Typed field paths ([`field`], [`path`]) and what is built from them:
//! filters ([`filter`]) and updates ([`update`]).

pub mod field;
pub mod filter;
pub mod path;
pub(crate) mod push;
pub mod update;
