//! Numbers read from the server's replies: counts the server sends as an
//! `int`, a `long` or (from some commands) a `double`.

use bson::{Bson, Document};

/// The count `key` of `reply`, 0 when it is missing, negative or not a
/// number.
pub(crate) fn count(reply: &Document, key: &str) -> u64 {
    match reply.get(key) {
        Some(Bson::Int32(n)) => u64::try_from(*n).unwrap_or(0),
        Some(Bson::Int64(n)) => u64::try_from(*n).unwrap_or(0),
        Some(Bson::Double(n)) => *n as u64,
        _ => 0,
    }
}
