//! How a run of the schema command ends: its [`Outcome`], or the
//! [`CliError`] that stopped it.

use std::process::ExitCode;

use super::redact::Secrets;
use crate::error::Error;

/// How a run ended: the exit code's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Done: in sync, applied, consistent, drawn (exit code 0).
    Done,
    /// `plan --check` found work to do, or `verify` a fault (exit code 1).
    Found,
}

impl Outcome {
    /// The process's exit code.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Done => ExitCode::SUCCESS,
            Outcome::Found => ExitCode::from(1),
        }
    }
}

/// Why a run could not finish.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// The arguments were wrong, or help was asked for: clap's message,
    /// without credentials.
    #[error("{0}")]
    Usage(UsageError),
    /// The command needs a database and none was given.
    #[error("no database: give --db or set MONGODB_DATABASE")]
    NoDatabase,
    /// The connection string (`--uri` or `MONGODB_URI`) could not be read:
    /// the driver's reason, without the password.
    #[error("the connection string (--uri or MONGODB_URI) is not valid: {0}")]
    BadUri(String),
    /// The server or the models refused.
    #[error(transparent)]
    Schema(#[from] Error),
    /// The output could not be written.
    #[error("writing the output: {0}")]
    Output(#[from] std::io::Error),
}

/// The arguments were wrong, or help was asked for: clap's message with the
/// password of every URI it quotes masked (see the [module docs](super)).
#[derive(Debug)]
pub struct UsageError {
    kind: clap::error::ErrorKind,
    message: String,
}

impl UsageError {
    pub(super) fn new(err: &clap::Error, secrets: &Secrets) -> Self {
        UsageError {
            kind: err.kind(),
            message: secrets.scrub(&err.render().to_string()),
        }
    }

    /// What clap found: help asked for, an unknown argument, a bad value...
    pub fn kind(&self) -> clap::error::ErrorKind {
        self.kind
    }

    /// Whether it is a mistake (printed on standard error), not the help
    /// asked for (standard output).
    pub fn use_stderr(&self) -> bool {
        !matches!(
            self.kind,
            clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
        )
    }

    /// The process's exit code: 0 for help, 2 for a mistake.
    pub fn exit_code(&self) -> i32 {
        if self.use_stderr() {
            2
        } else {
            0
        }
    }
}

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
