//! The README, compiled: every Rust snippet of `README.md` is a doctest of
//! this crate (`cargo test -p schema-workspace --doc --features tracing`), and [`User`],
//! [`Profile`] and [`Post`] are the models of its five-minute example, which
//! the later snippets bring in with a hidden `use readme::*;`.
//!
//! The root package is not published, so the README can be included from
//! here without `cargo package` of `schema-core` needing a file outside its
//! own directory.

mod models;

pub use models::{Post, Profile, User};

/// Every snippet of the README, as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    /// The models the snippets use are the ones the five-minute example shows,
    /// character for character (from the first line after the `use` lines).
    #[test]
    fn the_readme_shows_these_models() {
        let readme = include_str!("../README.md");
        let models = include_str!("models.rs");
        let start = models
            .find("\n\n")
            .expect("the `use` lines end with a blank line")
            + 2;
        assert!(
            models[start..].starts_with("/// `users`"),
            "src/models.rs: the models start after the first blank line"
        );
        assert!(
            readme.contains(&models[start..]),
            "src/models.rs differs from the five-minute example in README.md"
        );
    }
}
