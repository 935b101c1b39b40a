//! The README and the book, compiled: every Rust snippet of `README.md` and
//! of each chapter of the book (`book/src/`) is a doctest of this crate
//! (`cargo test -p schema-workspace --doc --features tracing`), and [`User`],
//! [`Profile`] and [`Post`] are the models of the five-minute example, which
//! the later snippets bring in with a hidden `use readme::*;`.
//!
//! The root package is not published, so the README and the book can be
//! included from here without `cargo package` of `schema-core` needing a
//! file outside its own directory.

mod models;

pub use models::{Post, Profile, User};

/// Every snippet of the README, as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Every snippet of the book, as doctests: one hidden module per chapter, in
/// the order of `book/src/SUMMARY.md`.
#[cfg(doctest)]
mod book {
    #[doc = include_str!("../book/src/introduction.md")]
    mod introduction {}
    #[doc = include_str!("../book/src/getting-started.md")]
    mod getting_started {}
    #[doc = include_str!("../book/src/models.md")]
    mod models {}
    #[doc = include_str!("../book/src/embedding.md")]
    mod embedding {}
    #[doc = include_str!("../book/src/references.md")]
    mod references {}
    #[doc = include_str!("../book/src/many-to-many.md")]
    mod many_to_many {}
    #[doc = include_str!("../book/src/joins-and-copies.md")]
    mod joins_and_copies {}
    #[doc = include_str!("../book/src/delete-policies.md")]
    mod delete_policies {}
    #[doc = include_str!("../book/src/queries.md")]
    mod queries {}
    #[doc = include_str!("../book/src/filters-and-updates.md")]
    mod filters_and_updates {}
    #[doc = include_str!("../book/src/aggregating.md")]
    mod aggregating {}
    #[doc = include_str!("../book/src/transactions.md")]
    mod transactions {}
    #[doc = include_str!("../book/src/growing-data.md")]
    mod growing_data {}
    #[doc = include_str!("../book/src/versions.md")]
    mod versions {}
    #[doc = include_str!("../book/src/setup.md")]
    mod setup {}
    #[doc = include_str!("../book/src/sharding.md")]
    mod sharding {}
    // Its snippets need the `encryption` feature (and libmongocrypt):
    // `cargo test --doc --features tracing,encryption encrypted_fields`.
    #[cfg(feature = "encryption")]
    #[doc = include_str!("../book/src/encrypted-fields.md")]
    mod encrypted_fields {}
    #[doc = include_str!("../book/src/errors.md")]
    mod errors {}
    #[doc = include_str!("../book/src/tracing.md")]
    mod tracing {}
    #[doc = include_str!("../book/src/changes.md")]
    mod changes {}
    #[doc = include_str!("../book/src/adopting.md")]
    mod adopting {}
    #[doc = include_str!("../book/src/running.md")]
    mod running {}
    #[doc = include_str!("../book/src/rules.md")]
    mod rules {}
}

#[cfg(test)]
mod tests {
    /// The models the snippets use are the ones the five-minute example
    /// shows, in the README and in the book's first chapter, character for
    /// character (from the first line after the `use` lines).
    #[test]
    fn the_readme_and_the_book_show_these_models() {
        let models = include_str!("models.rs");
        let start = models
            .find("\n\n")
            .expect("the `use` lines end with a blank line")
            + 2;
        assert!(
            models[start..].starts_with("/// `users`"),
            "src/models.rs: the models start after the first blank line"
        );
        for (file, text) in [
            ("README.md", include_str!("../README.md")),
            (
                "book/src/getting-started.md",
                include_str!("../book/src/getting-started.md"),
            ),
        ] {
            assert!(
                text.contains(&models[start..]),
                "src/models.rs differs from the five-minute example in {file}"
            );
        }
    }
}
