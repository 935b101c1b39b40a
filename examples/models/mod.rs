//! The seed models, one module per example, shared with `verify` (which
//! checks the data the examples leave behind against the models' own
//! bounds and indexes).
#![allow(dead_code)]

pub mod blog;
pub mod catalog;
pub mod chat;
pub mod orders;
pub mod school;
