//! Models that change: versioned shapes and their upgrade on read
//! ([`versions`]), and the resumable migration of stored documents
//! ([`migrate`]).

pub(crate) mod migrate;
pub(crate) mod versions;
