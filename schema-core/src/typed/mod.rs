//! Typed field paths ([`field`], [`path`]) and what is built from them:
//! filters ([`filter`]) and updates ([`update`]).

pub(crate) mod field;
pub(crate) mod filter;
pub(crate) mod path;
pub(crate) mod push;
pub(crate) mod update;
