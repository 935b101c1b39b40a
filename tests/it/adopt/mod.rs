//! Adopting a database written without these rules: databases built with
//! the raw driver as old code would have written them ([`seeds`]), their
//! audit, the models pulled from them, and the move of a stuck embedded
//! array into a collection of its own.

mod audit;
mod move_out;
mod pull;
pub mod seeds;
