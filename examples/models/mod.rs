//! The seed models, one module per example, shared with `verify` (which
//! checks the data the examples leave behind against the models' own
//! bounds and indexes).
#![allow(dead_code)]

pub mod blog;
pub mod catalog;
pub mod chat;
pub mod orders;
pub mod school;

/// The models of every example but `orders` (whose `products` are another
/// model on the catalog's collection), as the `schema` example's command
/// sees them.
pub fn all() -> schema_core::Schema {
    school::schema()
        .with::<catalog::Product>()
        .with::<catalog::Sku>()
        .with::<blog::User>()
        .with::<blog::Post>()
        .with::<chat::Room>()
        .with::<chat::RoomMessage>()
}
