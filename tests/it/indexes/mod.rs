//! The index kinds beyond plain ascending and descending keys: created by
//! setup with their options, compared with what the server lists (a second
//! `sync` finds nothing to do), and what the index guard counts on each.

mod collation;
mod geo;
mod hidden;
mod text;
mod wildcard;
