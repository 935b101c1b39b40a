//! Adopting a database written without these rules: databases built with
//! the raw driver as old code would have written them ([`seeds`]), their
//! audit, the models pulled from them, the move of a stuck embedded array
//! into a collection of its own, the walkthrough in its order as a user
//! runs the command, and a misspelled database refused.

mod audit;
mod move_out;
mod no_database;
mod pull;
pub mod seeds;
mod walkthrough;
