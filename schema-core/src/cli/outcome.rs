//! How a run of the schema command ends: its [`Outcome`], or the
//! [`CliError`] that stopped it.

use std::process::ExitCode;

use super::redact::Secrets;
use crate::error::{
    index_conflict_message, missing_index_message, rejects_existing_message, Error, Wording,
};

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
    /// The command needs the models and the schema it was given has none:
    /// the installed `schema` binary, which runs `audit` and `pull` only.
    #[error(
        "`{command}` needs your models, and this `schema` has none (installed alone, it runs \
         `audit` and `pull`): write a `src/bin/schema.rs` whose `main` awaits \
         `schema_core::cli::run(&models::schema())`, with the `models.rs` that `schema pull \
         --out` writes (`#[path = \"../models.rs\"] mod models;`), and run `cargo run --bin \
         schema -- {command}`"
    )]
    NoModels {
        /// The command asked for (`plan`, `sync`, ...).
        command: &'static str,
    },
    /// `pull --out FILE` found `FILE` there already, and `--force` was not
    /// given: nothing was read or written.
    #[error(
        "{} exists: `pull` does not overwrite it (it may hold your edits); give --force to \
         replace it, or --out another file; nothing was read",
        .0.display()
    )]
    OutExists(std::path::PathBuf),
    /// The connection string (`--uri` or `MONGODB_URI`) could not be read:
    /// the driver's reason, without the password.
    #[error("the connection string (--uri or MONGODB_URI) is not valid: {0}")]
    BadUri(String),
    /// The server or the models refused. Shown in the command's words:
    /// advice names its flags (`--on-violations moderate`), not the
    /// library's options.
    #[error("{}", in_command_words(.0))]
    Schema(#[from] Error),
    /// A master key for `schema keys rotate` is missing or malformed (its
    /// value is never shown).
    #[error("{var} {reason}: give the key as base64 of its 96 bytes")]
    MasterKey {
        /// The environment variable (or flag).
        var: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The output could not be written.
    #[error("writing the output: {0}")]
    Output(#[from] std::io::Error),
}

impl CliError {
    /// The process's exit code: 2 for wrong arguments or a command this
    /// binary cannot run without models (0 for help), 4 for a database with
    /// no collections to read (`audit`, `pull`: a misspelled `--db`, say),
    /// 3 for any other error.
    pub fn exit_code(&self) -> ExitCode {
        let code = match self {
            CliError::Usage(e) => u8::try_from(e.exit_code()).unwrap_or(2),
            CliError::NoModels { .. } => 2,
            CliError::Schema(Error::NoCollections { .. }) => 4,
            _ => 3,
        };
        ExitCode::from(code)
    }
}

/// `e`'s message with its advice in the command's words.
fn in_command_words(e: &Error) -> String {
    match e {
        Error::ValidatorRejectsExisting {
            collection,
            count,
            ids,
        } => rejects_existing_message(collection, *count, ids, Wording::Command),
        Error::IndexConflict {
            collection,
            server,
            wanted,
        } => index_conflict_message(collection, server, wanted, Wording::Command),
        Error::MissingIndex { collection, index } => {
            missing_index_message(collection, index, Wording::Command)
        }
        other => other.to_string(),
    }
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
