//! Adopting a database that grew without these rules: an [`audit`] of what
//! it holds against them.

pub(crate) mod audit;
pub(crate) mod move_out;
pub(crate) mod pull;
mod sample;
