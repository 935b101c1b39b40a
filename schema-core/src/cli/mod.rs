//! The schema command (`cli` feature): `audit` and `pull`, which need no
//! models, and, given your [`Schema`], `plan`, `sync`, `verify`, `repair`,
//! `migrate` and `diagram`, with the server and database from the command
//! line or the environment.
//!
//! `cargo install schema-core --features cli` installs a `schema` binary
//! without models: `audit` and `pull` run there, and a command that needs
//! the models says how to get them (an empty [`Schema`] gets the same
//! answer). The binary that runs them all is yours: its `main` (async,
//! under the runtime your program uses; the examples' `schema` binary is
//! `examples/schema.rs`) awaits [`run`] with your models (the `schema()`
//! that `pull` writes lists them):
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use schema_core::Schema;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[document(collection = "users")]
//! # struct User { #[serde(rename = "_id")] id: String, name: String }
//! async fn schema_main() -> std::process::ExitCode {
//!     let schema = Schema::new().with::<User>();
//!     schema_core::cli::run(&schema).await
//! }
//! ```
//!
//! ```text
//! schema --uri mongodb://localhost:27017 --db shop plan
//! schema --db shop plan --check          # exit 1 when setup has work to do
//! schema --db shop sync --on-violations moderate
//! schema --db shop verify                # exit 1 when a link or copy is off
//! schema --db shop repair --dry-run      # what repair would fix in the links
//! schema --db shop repair                # fix them, a line per id added or removed
//! schema --db shop migrate --pause-ms 50 # upgrade earlier versions, resumable
//! schema --db shop migrate --check       # exit 1 while a document is at an earlier version
//! schema --db shop audit --format json   # exit 1 on a finding; progress on standard error
//! schema --db shop pull --out src/models.rs # the models the data implies, as Rust source
//! schema --db shop pull --out src/models.rs --force # replace the file pulled before
//! schema diagram > docs/models.md        # no server needed
//! ```
//!
//! The server is `--uri` or `MONGODB_URI` (default
//! `mongodb://localhost:27017`), the database `--db` or `MONGODB_DATABASE`.
//! A server that does not answer is reported after 5 s
//! ([`SERVER_SELECTION_TIMEOUT`]) unless the URI sets
//! `serverSelectionTimeoutMS`.
//! Nothing the command prints shows the URI's password: not its help (the
//! environment's value is not shown), not its usage messages (a URI given
//! to the wrong flag or as a stray argument is quoted with its password
//! masked), not its errors.
//! Exit codes: 0 done (in sync, consistent, migrated); 1 `plan --check` found
//! work to do, `verify` found a fault, or `migrate --check` documents at an
//! earlier version, or `audit` a finding; 2 the arguments were wrong (clap's usage
//! message), or the command needs models this binary has not; 3 an error (the
//! server, the model), on standard error; 4 `audit` or `pull` found no
//! collection in the database (it does not exist: a misspelled `--db`), the
//! error naming the databases there are ([`CliError::exit_code`]).

mod audit;
#[cfg(feature = "encryption")]
mod keys;
mod migrate;
mod outcome;
mod pull;
mod redact;

#[cfg(feature = "encryption")]
pub use keys::{MASTER_KEY_ENV, NEXT_MASTER_KEY_ENV};
pub use outcome::{CliError, Outcome, UsageError};

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use crate::error::{Error, Wording};
use crate::evolution::migrate::MigrateOptions;
use crate::relation::verify::RepairOptions;
use crate::setup::apply::{OnViolations, SyncOptions};
use crate::setup::schema::Schema;

/// How long the command waits for a server when the URI does not say
/// (`serverSelectionTimeoutMS`).
pub const SERVER_SELECTION_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema command's arguments.
#[derive(Debug, Parser)]
#[command(
    name = "schema",
    about = "Audit a database and pull its models; plan, sync, verify, repair, migrate and draw \
             the models of a schema (those need a binary of your own with the models)"
)]
struct Args {
    /// The server's URI.
    #[arg(
        long,
        env = "MONGODB_URI",
        // Its value may hold a password: help never shows it.
        hide_env_values = true,
        default_value = "mongodb://localhost:27017",
        global = true
    )]
    uri: String,
    /// The database the models live in (every command but `diagram`).
    #[arg(long, env = "MONGODB_DATABASE", global = true, value_parser = database_name)]
    db: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print what setup would do (reads only).
    Plan {
        /// Exit with 1 when setup has anything to do.
        #[arg(long)]
        check: bool,
    },
    /// Apply the plan: create what is missing, report the rest.
    Sync {
        /// Drop indexes that no model declares.
        #[arg(long)]
        drop_extra_indexes: bool,
        /// Drop and recreate indexes whose definition differs.
        #[arg(long)]
        replace_conflicting: bool,
        /// What to do when stored documents fail a changed validator.
        #[arg(long, value_enum, default_value_t = Violations::Refuse)]
        on_violations: Violations,
    },
    /// Check every link and copy (reads only).
    Verify,
    /// Fix what `verify` finds in the links: add the missing half of a
    /// two-sided link, remove an id whose document is gone (each edge in a
    /// transaction of its own); print each id added or removed.
    Repair {
        /// Write nothing: print what would change.
        #[arg(long)]
        dry_run: bool,
    },
    /// Upgrade every document stored at an earlier version, in batches
    /// (resumable: run it again after a stop).
    Migrate {
        /// Documents read per batch.
        #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..))]
        batch_size: u32,
        /// A pause after each batch, in milliseconds, to bound the load.
        #[arg(long)]
        pause_ms: Option<u64>,
        /// Upgrade nothing: print the documents per version and exit with 1
        /// while any is at an earlier version (a CI gate on a finished
        /// migration).
        #[arg(long)]
        check: bool,
    },
    /// Audit the database against the modeling rules, declared models or
    /// not (reads only): per collection, every array path's lengths and the
    /// ones that look unbounded (long, or growing with age), the documents'
    /// sizes (the largest by `_id`), the fields holding ids of another
    /// collection (indexed or not, one-sided links), polymorphic
    /// sub-documents, and what the declared models refuse. Exits with 1 on
    /// a finding. Progress goes to standard error.
    Audit {
        /// Documents sampled per collection (`$sample`).
        #[arg(long, default_value_t = 1000)]
        sample: u32,
        /// Read every document instead of a sample.
        #[arg(long)]
        full: bool,
        /// An array this long in any document looks unbounded.
        #[arg(long, default_value_t = 1000)]
        long: u64,
        /// The report's format.
        #[arg(long, value_enum, default_value_t = audit::Format::Text)]
        format: audit::Format,
    },
    /// Write the Rust source of the models the data implies (reads
    /// only): a struct per collection, sub-documents, bounds from the
    /// longest arrays seen, references, indexes; an array that looks
    /// unbounded gets no bound, so the models do not compile until it is
    /// decided.
    Pull {
        /// Documents sampled per collection (`$sample`).
        #[arg(long, default_value_t = 1000)]
        sample: u32,
        /// Read every document instead of a sample.
        #[arg(long)]
        full: bool,
        /// The room a bound leaves above the longest array seen, in percent.
        #[arg(long, default_value_t = 100)]
        headroom: u32,
        /// An array this long in any document looks unbounded.
        #[arg(long, default_value_t = 1000)]
        long: u64,
        /// Write the source to this file instead of standard output.
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Replace the `--out` file when it exists (refused otherwise).
        #[arg(long, requires = "out")]
        force: bool,
    },
    /// Print the models as a Mermaid flowchart (no server needed).
    Diagram,
    /// The data keys of client-side encryption (the `encryption` feature).
    #[cfg(feature = "encryption")]
    Keys {
        #[command(subcommand)]
        action: KeysAction,
    },
}

/// What `keys` does.
#[cfg(feature = "encryption")]
#[derive(Debug, Subcommand)]
enum KeysAction {
    /// Rotate the local master key: every data key of the key vault is
    /// unwrapped with the key in SCHEMA_MASTER_KEY and wrapped with the one
    /// in SCHEMA_NEXT_MASTER_KEY (base64 of 96 bytes each, never printed),
    /// in one transaction; no document is rewritten.
    Rotate {
        /// The key vault, `database.collection`.
        #[arg(long, default_value = "encryption.__keyVault")]
        key_vault: String,
    },
}

impl Command {
    /// The command's name when it needs the models (all but `audit` and
    /// `pull`).
    fn needs_models(&self) -> Option<&'static str> {
        Some(match self {
            Command::Audit { .. } | Command::Pull { .. } => return None,
            #[cfg(feature = "encryption")]
            Command::Keys { .. } => return None,
            Command::Plan { .. } => "plan",
            Command::Sync { .. } => "sync",
            Command::Verify => "verify",
            Command::Repair { .. } => "repair",
            Command::Migrate { .. } => "migrate",
            Command::Diagram => "diagram",
        })
    }
}

/// `--on-violations` (see [`OnViolations`]).
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Violations {
    /// Refuse, naming the failing documents.
    Refuse,
    /// Apply at `validationLevel: moderate` until none fails.
    Moderate,
    /// Apply at `strict` anyway.
    Apply,
}

impl From<Violations> for OnViolations {
    fn from(v: Violations) -> Self {
        match v {
            Violations::Refuse => OnViolations::Refuse,
            Violations::Moderate => OnViolations::ValidateModerate,
            Violations::Apply => OnViolations::Apply,
        }
    }
}

/// Runs the schema command with the process's arguments, printing to
/// standard output (errors to standard error), and returns its exit code.
pub async fn run(schema: &Schema) -> ExitCode {
    run_args(schema, std::env::args_os()).await
}

/// [`run`] with these arguments (the first is the program's name), for a
/// program that builds them itself: prints as `run` does and returns the
/// exit code.
pub async fn run_args<I, T>(schema: &Schema, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let secrets = redact::Secrets::gather(&args);
    let mut out = std::io::stdout();
    match run_with(schema, args, &mut out).await {
        Ok(outcome) => outcome.exit_code(),
        Err(CliError::Usage(e)) => {
            // Help goes to standard output with 0; mistakes to standard
            // error with 2.
            if e.use_stderr() {
                eprint!("{e}");
            } else {
                print!("{e}");
            }
            CliError::Usage(e).exit_code()
        }
        Err(e) => {
            // Masked again: the database's name, say, is quoted by errors.
            eprintln!("error: {}", secrets.scrub(&e.to_string()));
            e.exit_code()
        }
    }
}

/// [`run`] with these arguments (the first is the program's name) and this
/// output, for a program that wraps the command or a test.
pub async fn run_with<I, T>(
    schema: &Schema,
    args: I,
    out: &mut (dyn Write + Send),
) -> Result<Outcome, CliError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let secrets = redact::Secrets::gather(&args);
    let args =
        Args::try_parse_from(args).map_err(|e| CliError::Usage(UsageError::new(&e, &secrets)))?;
    if let Some(command) = args
        .command
        .needs_models()
        .filter(|_| schema.models().is_empty())
    {
        return Err(CliError::NoModels { command });
    }
    if let Command::Diagram = args.command {
        return draw(schema, out);
    }
    if let Command::Pull {
        out: Some(file),
        force: false,
        ..
    } = &args.command
    {
        // Before anything is read: the file may hold the user's edits.
        if file.exists() {
            return Err(CliError::OutExists(file.clone()));
        }
    }
    let command = args.command;
    #[cfg(feature = "encryption")]
    if let Command::Keys {
        action: KeysAction::Rotate { key_vault },
    } = &command
    {
        let client = connect(&args.uri, &secrets).await?;
        let outcome = keys::rotate(&client, Some(key_vault), out).await;
        client.shutdown().await;
        return outcome;
    }
    let name = args.db.as_deref().ok_or(CliError::NoDatabase)?;
    let client = connect(&args.uri, &secrets).await?;
    let outcome = against(schema, &client.database(name), command, out).await;
    client.shutdown().await;
    outcome
}

/// A client for `uri`, its password masked in any error.
async fn connect(uri: &str, secrets: &redact::Secrets) -> Result<mongodb::Client, CliError> {
    let mut options = mongodb::options::ClientOptions::parse(uri)
        .await
        .map_err(|e| CliError::BadUri(secrets.scrub(&Error::from(e).to_string())))?;
    // A command, not a service: a server that is not there is said in
    // seconds (the driver's default waits 30 s), unless the URI says.
    options
        .server_selection_timeout
        .get_or_insert(SERVER_SELECTION_TIMEOUT);
    mongodb::Client::with_options(options)
        .map_err(|e| CliError::BadUri(secrets.scrub(&Error::from(e).to_string())))
}

/// `--db`: a name the server can hold (not empty; no `/`, `\`, `.`, space,
/// `"`, `$` nor NUL). Refused here rather than by the server, whose message would
/// quote it (a URI given to `--db` by mistake, say).
fn database_name(name: &str) -> Result<String, String> {
    if name.is_empty() || name.contains(['/', '\\', '.', ' ', '"', '$', '\0']) {
        return Err("a database name is not empty and holds none of `/\\. \"$` nor NUL".into());
    }
    Ok(name.to_owned())
}

/// Runs a command that needs the server, on `db`.
async fn against(
    schema: &Schema,
    db: &mongodb::Database,
    command: Command,
    out: &mut (dyn Write + Send),
) -> Result<Outcome, CliError> {
    let found = match command {
        Command::Audit {
            sample,
            full,
            long,
            format,
        } => {
            let options = crate::AuditOptions {
                sample,
                full_scan: full,
                long,
            };
            audit::run(schema, db, options, format, out).await?
        }
        Command::Pull {
            sample,
            full,
            headroom,
            long,
            out: file,
            force: _,
        } => {
            let options = crate::PullOptions {
                sample,
                full_scan: full,
                headroom,
                long,
            };
            pull::run(db, &options, file.as_deref(), out).await?
        }
        Command::Plan { check } => {
            let plan = schema.plan(db).await?;
            write!(out, "{}", plan.in_command_words())?;
            check && !plan.is_empty()
        }
        Command::Sync {
            drop_extra_indexes,
            replace_conflicting,
            on_violations,
        } => {
            let options = SyncOptions {
                drop_extra_indexes,
                replace_conflicting,
                on_violations: on_violations.into(),
            };
            let report = schema.sync_with(db, options).await?;
            if report.applied.is_empty() {
                writeln!(out, "applied: nothing")?;
            }
            let moderate = options.on_violations == OnViolations::ValidateModerate;
            for a in &report.applied {
                let (c, verb, detail) = (a.collection(), a.verb(), a.applied_detail(moderate));
                writeln!(out, "applied: {c} {verb} {detail}")?;
            }
            for a in &report.left_alone {
                let (c, verb, detail) = (a.collection(), a.verb(), a.detail_in(Wording::Command));
                writeln!(out, "left alone: {c} {verb} {detail}")?;
            }
            false
        }
        Command::Verify => {
            let check = schema.verify(db).await?;
            write!(out, "{check}")?;
            !check.is_consistent()
        }
        Command::Repair { dry_run } => {
            let done = schema.repair(db, RepairOptions { dry_run }).await?;
            write!(out, "{done}")?;
            false
        }
        Command::Migrate { check: true, .. } => migrate::check(schema, db, out).await?,
        Command::Migrate {
            batch_size,
            pause_ms,
            check: false,
        } => {
            let options = MigrateOptions {
                batch_size,
                pause: pause_ms.map(Duration::from_millis),
            };
            migrate::run(schema, db, options, out).await?;
            false
        }
        Command::Diagram => return draw(schema, out),
        // Run before a database is asked for (`run_with`).
        #[cfg(feature = "encryption")]
        Command::Keys { .. } => false,
    };
    Ok(if found { Outcome::Found } else { Outcome::Done })
}

/// `diagram`: the models as a Mermaid flowchart in a Markdown code block.
fn draw(schema: &Schema, out: &mut (dyn Write + Send)) -> Result<Outcome, CliError> {
    writeln!(out, "```mermaid\n{}```", schema.diagram())?;
    Ok(Outcome::Done)
}
