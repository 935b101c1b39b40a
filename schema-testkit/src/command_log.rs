//! The one command-counting client of the workspace: [`counting_client`]
//! (or [`counting_client_with`], for an `appName`, a pool size, ...) connects
//! to the test server with a client whose commands are recorded in a
//! [`CommandLog`]: the name of every command it starts, and every command
//! that fails or comes back with a write-concern error. The tests, the
//! examples and the benchmarks all count with it.
//!
//! The log records every command the driver reports, whatever its name:
//! [`names`](CommandLog::names) and [`take`](CommandLog::take) hold them all
//! (the benchmarks count those). [`operations`](CommandLog::operations) and
//! [`take_operations`](CommandLog::take_operations) leave out `hello` and
//! `isMaster` (the helpers' one-time transaction check, and any handshake the
//! driver reports), authentication and `endSessions`, for the tests that pin
//! the commands of one call after its first use.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bson::Bson;
use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;
use mongodb::options::ClientOptions;
use mongodb::Client;

use crate::server::{self, ServerError};

/// Connects to the test server ([`server::uri`]) with a client whose
/// commands are recorded in the returned log.
pub async fn counting_client() -> Result<(Client, CommandLog), ServerError> {
    counting_client_with(|_| {}).await
}

/// [`counting_client`], with `configure` adjusting the client's options
/// first (an `appName` a failpoint can target, a pool size, a heartbeat
/// frequency).
pub async fn counting_client_with(
    configure: impl FnOnce(&mut ClientOptions),
) -> Result<(Client, CommandLog), ServerError> {
    let mut options = ClientOptions::parse(server::uri()?).await?;
    configure(&mut options);
    let log = CommandLog::default();
    log.record(&mut options);
    Ok((Client::with_options(options)?, log))
}

/// A command that failed, or that succeeded with a write-concern error.
#[derive(Debug, Clone)]
pub enum Failure {
    /// The command failed with `error`.
    Command {
        /// The command's name.
        command: String,
        /// Its error.
        error: mongodb::error::Error,
    },
    /// The command succeeded, and its reply holds a `writeConcernError`.
    WriteConcern {
        /// The command's name.
        command: String,
        /// The reply's `writeConcernError`.
        error: Bson,
    },
}

impl Failure {
    /// The name of the command that failed.
    pub fn command(&self) -> &str {
        match self {
            Failure::Command { command, .. } | Failure::WriteConcern { command, .. } => command,
        }
    }

    /// Whether the command failed with an error carrying `label`.
    pub fn has_label(&self, label: &str) -> bool {
        matches!(self, Failure::Command { error, .. } if error.contains_label(label))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Command { command, error } => write!(f, "{command}: {error}"),
            Failure::WriteConcern { command, error } => {
                write!(f, "{command}: writeConcernError {error}")
            }
        }
    }
}

/// A command as it was sent: its name, its database and the whole command
/// document (kept by a log made with [`CommandLog::keeping_commands`]).
#[derive(Debug, Clone)]
pub struct Sent {
    /// The command's name.
    pub name: String,
    /// The database it was sent to.
    pub database: String,
    /// The command document, as the driver sent it.
    pub command: bson::Document,
}

/// What a client sent: the names of its commands in order, and its failures;
/// the whole commands too when `keep` is set.
#[derive(Default)]
struct Record {
    names: Vec<String>,
    failures: Vec<Failure>,
    keep: bool,
    sent: Vec<Sent>,
}

/// The commands a client sent, shared by the clones of the log.
#[derive(Clone, Default)]
pub struct CommandLog(Arc<Mutex<Record>>);

/// What [`CommandLog::operations`] leaves out: `hello` and `isMaster` (the
/// helpers' one-time transaction check, and any handshake the driver
/// reports), authentication, and `endSessions` (sent when a client shuts
/// down).
fn is_left_out_of_operations(name: &str) -> bool {
    matches!(
        name,
        "hello" | "isMaster" | "ismaster" | "saslStart" | "saslContinue" | "endSessions"
    )
}

impl CommandLog {
    /// A log that also keeps every command document it records (for tests
    /// that check what was sent: [`take_sent`](Self::take_sent)).
    pub fn keeping_commands() -> CommandLog {
        let log = CommandLog::default();
        log.lock().keep = true;
        log
    }

    /// Records every command that a client made with `options` sends
    /// (replacing any command event handler they had).
    pub fn record(&self, options: &mut ClientOptions) {
        let sink = self.clone();
        options.command_event_handler = Some(EventHandler::callback(move |ev: CommandEvent| {
            let failure = match ev {
                CommandEvent::Started(started) => {
                    let mut record = sink.lock();
                    if record.keep {
                        record.sent.push(Sent {
                            name: started.command_name.clone(),
                            database: started.db.clone(),
                            command: started.command.clone(),
                        });
                    }
                    record.names.push(started.command_name);
                    return;
                }
                CommandEvent::Failed(failed) => Failure::Command {
                    command: failed.command_name,
                    error: failed.failure,
                },
                CommandEvent::Succeeded(ok) => match ok.reply.get("writeConcernError") {
                    Some(error) => Failure::WriteConcern {
                        command: ok.command_name,
                        error: error.clone(),
                    },
                    None => return,
                },
                _ => return,
            };
            sink.lock().failures.push(failure);
        }));
    }

    /// The record (a panic elsewhere does not lose it).
    fn lock(&self) -> MutexGuard<'_, Record> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The name of every command sent so far, in order.
    pub fn names(&self) -> Vec<String> {
        self.lock().names.clone()
    }

    /// How many commands were sent so far.
    pub fn count(&self) -> usize {
        self.lock().names.len()
    }

    /// The name of every command sent since the last `take` or
    /// [`clear`](Self::clear), and forgets them.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.lock().names)
    }

    /// The commands sent so far, without `hello`, `isMaster`, authentication
    /// and `endSessions` (see the module docs).
    pub fn operations(&self) -> Vec<String> {
        let mut names = self.names();
        names.retain(|n| !is_left_out_of_operations(n));
        names
    }

    /// [`operations`](Self::operations), and forgets every command sent so far.
    pub fn take_operations(&self) -> Vec<String> {
        let mut names = self.take();
        names.retain(|n| !is_left_out_of_operations(n));
        names
    }

    /// Every failure so far (connection upkeep included), in order.
    pub fn failures(&self) -> Vec<Failure> {
        self.lock().failures.clone()
    }

    /// The failures since the last `take_failures` or
    /// [`clear`](Self::clear), and forgets them.
    pub fn take_failures(&self) -> Vec<Failure> {
        std::mem::take(&mut self.lock().failures)
    }

    /// The commands kept since the last `take_sent` or [`clear`](Self::clear)
    /// (a log made with [`keeping_commands`](Self::keeping_commands)), without
    /// those [`operations`](Self::operations) leaves out, and forgets them.
    pub fn take_sent(&self) -> Vec<Sent> {
        let mut sent = std::mem::take(&mut self.lock().sent);
        sent.retain(|s| !is_left_out_of_operations(&s.name));
        sent
    }

    /// Forgets every command and failure recorded so far.
    pub fn clear(&self) {
        let mut record = self.lock();
        record.names.clear();
        record.failures.clear();
        record.sent.clear();
    }
}

/// Command names counted by name, in order of first appearance:
/// `1 listCollections, 20 listIndexes` (`none` when empty).
pub fn tally(names: &[String]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for name in names {
        match counts.iter_mut().find(|(n, _)| n == name) {
            Some((_, count)) => *count += 1,
            None => counts.push((name, 1)),
        }
    }
    if counts.is_empty() {
        return "none".to_owned();
    }
    counts
        .iter()
        .map(|(name, count)| format!("{count} {name}"))
        .collect::<Vec<_>>()
        .join(", ")
}
