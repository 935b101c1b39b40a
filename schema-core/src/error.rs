//! The errors the runtime returns, each naming what a user needs to act on it.
//! Messages never contain credentials.

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server could not be reached.
    #[error("cannot reach the MongoDB server at {hosts}: {reason}")]
    Unreachable {
        /// The hosts tried (never credentials).
        hosts: String,
        /// The driver's account of why.
        reason: String,
    },
    /// The server refused for lack of rights.
    #[error("permission denied: cannot {action} `{collection}`: {message}")]
    PermissionDenied {
        /// What was attempted (e.g. "create indexes on").
        action: &'static str,
        /// The collection or database.
        collection: String,
        /// The server's message.
        message: String,
    },
    /// An index with the model's name or keys exists with another definition.
    #[error(
        "index conflict on `{collection}`: the server has `{server}` but the model declares \
         `{wanted}`; drop the server's index, or run setup with `replace_conflicting`"
    )]
    IndexConflict {
        /// Collection name.
        collection: String,
        /// The server's index.
        server: String,
        /// The model's index.
        wanted: String,
    },
    /// The schema needs multi-document transactions and the server is standalone.
    #[error(
        "{models:?} keep two-sided links, which need multi-document transactions, but the \
         server is a standalone: run it as a replica set (a one-node replica set is enough)"
    )]
    TransactionsUnsupported {
        /// The models that need them.
        models: Vec<&'static str>,
    },
    /// The driver or the server reported another error.
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

/// The server's code for "not authorized".
const UNAUTHORIZED: i32 = 13;

impl Error {
    /// Classifies a driver error from `action` on `collection`.
    pub fn from_server(err: mongodb::error::Error, action: &'static str, collection: &str) -> Self {
        if DriverErrorExt::code(&err) == Some(UNAUTHORIZED) {
            return Error::PermissionDenied {
                action,
                collection: collection.to_owned(),
                message: err.message().unwrap_or("not authorized").to_owned(),
            };
        }
        if matches!(*err.kind, mongodb::error::ErrorKind::ServerSelection { .. }) {
            let reason = err.to_string();
            return Error::Unreachable {
                hosts: hosts_in(&reason),
                reason,
            };
        }
        Error::Driver(err)
    }

    /// The server's error code, when the server sent one.
    pub fn code(&self) -> Option<i32> {
        match self {
            Error::Driver(e) => DriverErrorExt::code(e),
            _ => None,
        }
    }
}

/// Pulls the `Address: host:port` entries out of a server-selection message.
fn hosts_in(message: &str) -> String {
    let hosts: Vec<&str> = message
        .split("Address: ")
        .skip(1)
        .filter_map(|s| s.split([',', ' ']).next())
        .collect();
    if hosts.is_empty() {
        "the configured hosts".to_owned()
    } else {
        hosts.join(", ")
    }
}

/// Error helpers on driver errors.
pub(crate) trait DriverErrorExt {
    fn code(&self) -> Option<i32>;
    fn message(&self) -> Option<&str>;
}

impl DriverErrorExt for mongodb::error::Error {
    fn code(&self) -> Option<i32> {
        match self.kind.as_ref() {
            mongodb::error::ErrorKind::Command(c) => Some(c.code),
            mongodb::error::ErrorKind::Write(mongodb::error::WriteFailure::WriteError(w)) => {
                Some(w.code)
            }
            mongodb::error::ErrorKind::Write(mongodb::error::WriteFailure::WriteConcernError(
                w,
            )) => Some(w.code),
            _ => None,
        }
    }

    fn message(&self) -> Option<&str> {
        match self.kind.as_ref() {
            mongodb::error::ErrorKind::Command(c) => Some(&c.message),
            mongodb::error::ErrorKind::Write(mongodb::error::WriteFailure::WriteError(w)) => {
                Some(&w.message)
            }
            _ => None,
        }
    }
}
