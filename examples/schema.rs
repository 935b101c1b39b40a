//! The schema command over the examples' models: what a user's own
//! `src/bin/schema.rs` holds (see `schema_core::cli`).
//!
//! ```text
//! cargo run --example schema -- --db demo plan
//! cargo run --example schema -- --db demo sync
//! cargo run --example schema -- --db demo verify
//! cargo run --example schema -- diagram
//! ```
//!
//! The server is `--uri` or `MONGODB_URI`, the database `--db` or
//! `MONGODB_DATABASE`.

mod models;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    schema_core::cli::run(&models::all()).await
}
