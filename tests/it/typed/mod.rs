//! Typed filters and updates against the server: what they send, paths into
//! tagged enums, and values with no BSON form refused before sending.

mod enum_paths;
mod filters;
mod serialize_errors;
mod updates;
