//! The adoption walkthrough of the README and the book, in its order, run
//! as a user runs it: the command in a process of its own (this test binary
//! run again as the schema command, its exit code and output read), as the
//! installed `schema` binary (no models: `audit`, `pull`) and then as the
//! user's own binary with the models they decided on (`plan`, `sync`), on
//! a chat room whose messages old code pushed past 1,000, written with the
//! raw driver ([`seeds::long_room`]: seed 000's stuck room, lighter).
//!
//! 1. `schema --db D audit`: exit 1, the room's messages look unbounded.
//! 2. `schema --db D pull --out src/models.rs`: the models and their
//!    `schema()`; a second pull is refused without `--force`.
//! 3. The models decided ([`decided`]): the messages moved out, the room
//!    without them.
//! 4. `sync` is refused (every room still holds its messages), in the
//!    command's words (`--on-violations moderate`); `sync --on-violations
//!    moderate` creates the children's collection and index and holds the
//!    rooms to the new validator at `moderate`.
//! 5. The move (the user's program: `MoveOut::run`).
//! 6. `sync` restores `strict`; `plan --check` exits 0.

use std::path::Path;
use std::process::Output;

use mongodb::bson::doc;
use schema_core::{Document, MoveOptions, MoveOut};

use super::seeds;

/// The messages of the long room.
const MESSAGES: i32 = 1_500;
use crate::support;

/// The environment variables that make this binary the schema command: its
/// arguments (separated by U+001F), and which models it holds (`none`, the
/// installed binary; `decided`, the user's own).
const CHILD_ARGS: &str = "WALKTHROUGH_ARGS";
const CHILD_MODELS: &str = "WALKTHROUGH_MODELS";

/// `src/models.rs` after the user decided: the room's messages moved out
/// into `messages`, each pointing at its room, in the room's order (`n`).
pub mod decided {
    use schema_core::bson::oid::ObjectId;
    use schema_core::prelude::*;
    use serde::{Deserialize, Serialize};

    // Every model below, for the schema command (a `src/bin/schema.rs` whose
    // `main` awaits `schema_core::cli::run(&models::schema())`).
    pub fn schema() -> schema_core::Schema {
        schema_core::Schema::new().with::<Room>().with::<Message>()
    }

    // `rooms`: 31 documents read.
    #[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[document(collection = "rooms")]
    pub struct Room {
        #[serde(rename = "_id")]
        pub id: String,
    }

    // The room's messages, moved out.
    #[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[document(collection = "messages")]
    pub struct Message {
        #[serde(rename = "_id")]
        pub id: ObjectId,
        #[reference(index, to = Room, sort(n = desc))]
        pub room: String,
        pub n: i32,
        pub text: String,
    }
}

/// This binary as the schema command (see [`schema`]).
#[tokio::test]
#[ignore = "the schema command, run by the walkthrough in a process of its own"]
async fn as_the_schema_command() {
    let Ok(args) = std::env::var(CHILD_ARGS) else {
        return;
    };
    let argv = std::iter::once("schema")
        .chain(args.split('\u{1f}').filter(|a| !a.is_empty()))
        .map(str::to_owned);
    let models = match std::env::var(CHILD_MODELS).as_deref() {
        Ok("decided") => decided::schema(),
        _ => schema_core::Schema::new(),
    };
    let code = schema_core::cli::run_args(&models, argv).await;
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    let code = (0..=4)
        .find(|n| std::process::ExitCode::from(*n) == code)
        .map_or(99, i32::from);
    std::process::exit(code);
}

/// One run of the command: its exit code, standard output and error.
pub(super) struct Run {
    code: Option<i32>,
    out: String,
    err: String,
}

impl Run {
    fn of(output: Output) -> Run {
        Run {
            code: output.status.code(),
            out: String::from_utf8_lossy(&output.stdout).into_owned(),
            err: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    pub(super) fn exits(&self, code: i32) -> &Self {
        assert_eq!(self.code, Some(code), "{self}");
        self
    }

    pub(super) fn says(&self, what: &str) -> &Self {
        assert!(self.out.contains(what), "should print {what:?}: {self}");
        self
    }

    pub(super) fn errs(&self, what: &str) -> &Self {
        assert!(
            self.err.contains(what),
            "should print {what:?} on stderr: {self}"
        );
        self
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?}\n--- stdout:\n{}\n--- stderr:\n{}",
            self.code, self.out, self.err
        )
    }
}

/// `schema args...` with `models` (`none` or `decided`), on the test
/// server, in `dir` (the user's project).
pub(super) fn schema(models: &str, dir: &Path, args: &[&str]) -> Run {
    let mut argv = vec!["--uri".to_owned(), support::uri()];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let output = support::child_test(module_path!(), "as_the_schema_command")
        .env(CHILD_ARGS, argv.join("\u{1f}"))
        .env(CHILD_MODELS, models)
        .env_remove("MONGODB_URI")
        .env_remove("MONGODB_DATABASE")
        .current_dir(dir)
        .output()
        .expect("run the schema command");
    Run::of(output)
}

#[tokio::test]
async fn the_walkthrough_in_its_order_with_the_command() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "walkthrough").await;
    seeds::long_room(&db, MESSAGES, 30).await;
    let name = db.name().to_owned();
    let project = std::env::temp_dir().join(&name);
    std::fs::create_dir_all(project.join("src")).unwrap();
    let models = project.join("src/models.rs");

    // 1. Audit, with the installed binary: the long room is a finding.
    schema("none", &project, &["--db", &name, "audit"])
        .exits(1)
        .says("rooms.messages")
        .says("looks unbounded");
    // A command that needs models says where they come from.
    schema("none", &project, &["--db", &name, "plan"])
        .exits(2)
        .errs("`plan` needs your models")
        .errs("schema_core::cli::run(&models::schema())");

    // 2. Pull: the models and the list of them; a second pull asks first.
    schema(
        "none",
        &project,
        &["--db", &name, "pull", "--out", "src/models.rs"],
    )
    .exits(0)
    .says("pulled 1 model into src/models.rs")
    .says("rooms.messages looks unbounded")
    .says("cargo run --bin schema --");
    let pulled = std::fs::read_to_string(&models).unwrap();
    assert!(
        pulled.contains("pub fn schema() -> schema_core::Schema {")
            && pulled.contains("schema_core::Schema::new().with::<Room>()")
            && pulled.contains("pub messages: Vec<Message>,"),
        "{pulled}"
    );
    std::fs::write(&models, "// edited\n").unwrap();
    schema(
        "none",
        &project,
        &["--db", &name, "pull", "--out", "src/models.rs"],
    )
    .exits(3)
    .errs("src/models.rs exists")
    .errs("--force");
    assert_eq!(std::fs::read_to_string(&models).unwrap(), "// edited\n");
    schema(
        "none",
        &project,
        &["--db", &name, "pull", "--out", "src/models.rs", "--force"],
    )
    .exits(0);
    assert_eq!(std::fs::read_to_string(&models).unwrap(), pulled);

    // 3-4. The models decided (`decided`): the plan counts the rooms the
    // new validator refuses, a plain sync refuses it, both in the command's
    // words, and nothing changes.
    let plan = schema("decided", &project, &["--db", &name, "plan"]);
    plan.exits(0)
        .says("31 existing documents fail it")
        .says("refused unless the data is fixed or `--on-violations` says how");
    assert!(!plan.out.contains("on_violations"), "{plan}");
    let refused = schema("decided", &project, &["--db", &name, "sync"]);
    refused
        .exits(3)
        .errs("31 existing documents of `rooms` fail the model's validator")
        .errs("schema sync --on-violations moderate");
    assert!(
        !refused.err.contains("SyncOptions") && !refused.err.contains("OnViolations"),
        "{refused}"
    );
    let synced = schema(
        "decided",
        &project,
        &["--db", &name, "sync", "--on-violations", "moderate"],
    );
    synced
        .exits(0)
        .says("applied: messages create collection")
        .says("applied: messages create index room_1_n_-1__id_-1")
        .says("applied: rooms update validator")
        .says("applied at validationLevel \"moderate\"");
    assert!(!synced.out.contains("on_violations"), "{synced}");

    // 5. The move, by the user's program, readers served meanwhile.
    let move_out =
        MoveOut::<decided::Room, decided::Message>::new("messages", decided::Message::FIELDS.room);
    let newest = move_out
        .reads(&db)
        .newest(&"room1".to_owned(), 20)
        .await
        .unwrap();
    assert_eq!(newest.len(), 20);
    let done = move_out
        .run(&db, MoveOptions::default(), |_| {})
        .await
        .unwrap();
    assert!(done.finished);
    let moved = db
        .collection::<mongodb::bson::Document>("messages")
        .count_documents(doc! { "room": "room1" })
        .await
        .unwrap();
    assert_eq!(moved, u64::try_from(MESSAGES).unwrap());

    // 6. Sync again: strict restored; then nothing left to do.
    schema("decided", &project, &["--db", &name, "plan"])
        .exits(0)
        .says("moderate -> strict");
    schema("decided", &project, &["--db", &name, "sync"])
        .exits(0)
        .says("applied: rooms");
    schema("decided", &project, &["--db", &name, "plan", "--check"])
        .exits(0)
        .says("in sync: nothing to do");
    schema("decided", &project, &["--db", &name, "audit"]).exits(0);
    std::fs::remove_dir_all(&project).unwrap();
}
