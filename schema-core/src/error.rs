//! The errors the runtime returns.

/// What went wrong, with the names a user needs to act on it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The driver or the server reported an error.
    #[error(transparent)]
    Driver(#[from] mongodb::error::Error),
    /// A value could not be turned into BSON.
    #[error("cannot serialize a `{model}` to BSON: {source}")]
    Serialize {
        /// The model's Rust name.
        model: &'static str,
        /// The cause.
        source: bson::ser::Error,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
