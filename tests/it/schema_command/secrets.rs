//! The schema command never prints a password. Against a server started
//! with `--auth`, the command (this test binary run again as the examples'
//! `schema` binary: `schema_core::cli::run_args` on the examples' models,
//! its standard output and error read) runs every verb with every flag, the
//! help of each (`--help`, `-h`, `help <verb>`), and its mistakes (an
//! unknown flag or verb, a bad value, no database, a wrong password, an
//! unreachable host), with the password given
//!
//! (a) in `--uri`,
//! (b) in `MONGODB_URI`,
//! (c) to every other flag that takes a value and as a stray argument (no
//!     other flag takes a URI: a URI given to the wrong one is the mistake
//!     that gets quoted back),
//!
//! and every byte printed is searched for the password, as written and
//! percent-decoded.

use crate::example_models;
use crate::support;

use std::process::Output;

use bson::doc;
use schema_testkit::server::{Server, ServerOptions};

/// The environment variable that makes this binary the schema command:
/// its arguments, separated by U+001F.
const CHILD_ARGS: &str = "SCHEMA_COMMAND_ARGS";

/// The password of `alice` (a `root` user), percent-encoded in the URI as
/// the driver requires: `/`, `?` and `@` in it.
const PASSWORD: &str = "Pa55/w0rd?never@shown";
const PASSWORD_IN_URI: &str = "Pa55%2Fw0rd%3Fnever%40shown";
/// A wrong password, which must not show either.
const WRONG: &str = "Wr0ng-pa55word-hidden";

/// The verbs and what each takes.
const VERBS: [&str; 8] = [
    "plan", "sync", "verify", "repair", "migrate", "audit", "pull", "diagram",
];

/// Runs this binary as the schema command with `args`, `env_uri` as
/// `MONGODB_URI` (none otherwise, whatever the test's own environment).
fn schema(args: &[&str], env_uri: Option<&str>) -> Output {
    let mut command = support::child_test(module_path!(), "as_the_schema_command");
    command
        .env(CHILD_ARGS, args.join("\u{1f}"))
        .env_remove("MONGODB_URI")
        .env_remove("MONGODB_DATABASE");
    if let Some(uri) = env_uri {
        command.env("MONGODB_URI", uri);
    }
    command.output().expect("run the schema command")
}

/// This binary as the schema command (see [`schema`]).
#[tokio::test]
#[ignore = "the schema command, run by the test below in a process of its own"]
async fn as_the_schema_command() {
    let Ok(args) = std::env::var(CHILD_ARGS) else {
        return;
    };
    let argv = std::iter::once("schema")
        .chain(args.split('\u{1f}').filter(|a| !a.is_empty()))
        .map(str::to_owned);
    let code = schema_core::cli::run_args(&example_models::all(), argv).await;
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    let code = (0..=4)
        .find(|n| std::process::ExitCode::from(*n) == code)
        .map_or(99, i32::from);
    std::process::exit(code);
}

/// A run's exit code and everything it printed.
struct Run {
    args: Vec<String>,
    code: Option<i32>,
    printed: String,
}

impl Run {
    fn of(args: &[&str], env_uri: Option<&str>) -> Run {
        let output = schema(args, env_uri);
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        Run {
            args: args.iter().map(|a| a.to_string()).collect(),
            code: output.status.code(),
            printed,
        }
    }

    /// `what` is printed (so the run did what it is checked for).
    fn says(&self, what: &str) -> &Self {
        assert!(
            self.printed.contains(what),
            "{:?} (exit {:?}) should print {what:?}:\n{}",
            self.args,
            self.code,
            self.printed
        );
        self
    }

    fn exits(&self, code: i32) -> &Self {
        assert_eq!(self.code, Some(code), "{:?}:\n{}", self.args, self.printed);
        self
    }
}

/// Every argument list of the command: each verb with each of its flags,
/// each help, each mistake; `db` is the database (given with `--db`).
fn every_use(db: &str) -> Vec<Vec<String>> {
    let mut uses: Vec<Vec<&str>> = vec![
        vec!["--help"],
        vec!["-h"],
        vec!["help"],
        vec![],
        vec!["--db", db, "plan"],
        vec!["--db", db, "plan", "--check"],
        vec!["--db", db, "sync"],
        vec!["--db", db, "sync", "--drop-extra-indexes"],
        vec!["--db", db, "sync", "--replace-conflicting"],
        vec!["--db", db, "sync", "--on-violations", "refuse"],
        vec!["--db", db, "sync", "--on-violations", "moderate"],
        vec!["--db", db, "sync", "--on-violations", "apply"],
        vec!["--db", db, "verify"],
        vec!["--db", db, "repair", "--dry-run"],
        vec!["--db", db, "repair"],
        vec!["--db", db, "migrate"],
        vec!["--db", db, "migrate", "--check"],
        vec![
            "--db",
            db,
            "migrate",
            "--batch-size",
            "10",
            "--pause-ms",
            "1",
        ],
        vec!["--db", db, "audit"],
        vec!["--db", db, "audit", "--full", "--long", "10"],
        vec!["--db", db, "audit", "--format", "json"],
        vec!["--db", db, "audit", "--format", "markdown"],
        vec!["--db", db, "pull"],
        vec!["--db", db, "pull", "--full", "--headroom", "50"],
        vec!["diagram"],
        vec!["--db", db, "diagram"],
        // Mistakes.
        vec!["--db", db, "plan", "--bogus"],
        vec!["--bogus"],
        vec!["--db", db, "nosuchverb"],
        vec!["--db", db, "sync", "--on-violations", "sometimes"],
        vec!["--db", db, "migrate", "--batch-size", "0"],
        vec!["--db", db, "migrate", "--pause-ms", "soon"],
        vec!["--db", db, "audit", "--format", "yaml"],
        vec!["--db", db, "pull", "--headroom", "lots"],
        vec!["--db", "no.dots", "plan"],
        vec!["verify"],
        vec!["--db"],
    ];
    for verb in VERBS {
        uses.push(vec![verb, "--help"]);
        uses.push(vec![verb, "-h"]);
        uses.push(vec!["help", verb]);
        uses.push(vec![verb, "--bogus"]);
    }
    uses.into_iter()
        .map(|u| u.into_iter().map(str::to_owned).collect())
        .collect()
}

/// The password, as written or decoded, in what a run printed.
fn assert_no_password(run: &Run) {
    for secret in [PASSWORD, PASSWORD_IN_URI, WRONG] {
        assert!(
            !run.printed.contains(secret),
            "{:?} printed the password {secret:?}:\n{}",
            run.args,
            run.printed
        );
    }
}

#[test]
fn no_output_of_the_schema_command_shows_a_password() {
    let server = Server::start(ServerOptions {
        auth: true,
        ..Default::default()
    })
    .unwrap();
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let bootstrap = mongodb::Client::with_uri_str(server.uri()).await.unwrap();
        bootstrap
            .database("admin")
            .run_command(doc! { "createUser": "alice", "pwd": PASSWORD, "roles": ["root"] })
            .await
            .unwrap();
    });
    let with = |password: &str, port: u16| {
        format!(
            "mongodb://alice:{password}@127.0.0.1:{port}/?directConnection=true&authSource=admin\
             &serverSelectionTimeoutMS=300"
        )
    };
    let good = with(PASSWORD_IN_URI, server.port());
    let wrong = with(WRONG, server.port());
    // Nothing listens on port 9.
    let nowhere = with(PASSWORD_IN_URI, 9);
    let db = "app";

    let mut runs = 0;
    // (a) `--uri` and (b) `MONGODB_URI`: the correct password, a wrong
    // one, an unreachable host.
    for uri in [&good, &wrong, &nowhere] {
        for args in every_use(db) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let flagged: Vec<&str> = ["--uri", uri.as_str()]
                .into_iter()
                .chain(args.iter().copied())
                .collect();
            let inline = format!("--uri={uri}");
            let inlined: Vec<&str> = std::iter::once(inline.as_str())
                .chain(args.iter().copied())
                .collect();
            for run in [
                Run::of(&flagged, None),
                Run::of(&inlined, None),
                Run::of(&args, Some(uri)),
            ] {
                assert_no_password(&run);
                runs += 1;
            }
        }
    }
    // (c) The URI given where another value belongs, or alone.
    let g = good.as_str();
    let inline_db = format!("--db={g}");
    let misplaced: Vec<Vec<&str>> = vec![
        vec!["--db", g, "plan"],
        vec![&inline_db, "plan"],
        vec!["--db", db, "plan", g],
        vec!["--db", db, g],
        vec![g],
        vec!["help", g],
        vec!["--db", db, "sync", "--on-violations", g],
        vec!["--db", db, "migrate", "--batch-size", g],
        vec!["--db", db, "migrate", "--pause-ms", g],
        vec!["--db", db, "plan", "--check", g],
        vec!["--db", db, "sync", "--drop-extra-indexes", g],
        vec!["--db", db, "repair", "--dry-run", g],
        vec!["diagram", g],
    ];
    for args in &misplaced {
        let flagged: Vec<&str> = ["--uri", g].into_iter().chain(args.clone()).collect();
        for run in [Run::of(&flagged, None), Run::of(args, Some(g))] {
            assert_no_password(&run);
            runs += 1;
        }
    }
    assert!(runs > 300, "{runs} runs");

    // The runs did what they are checked for.
    Run::of(&["--uri", g, "--db", db, "plan"], None)
        .exits(0)
        .says("in sync: nothing to do");
    Run::of(&["--db", db, "verify"], Some(g))
        .exits(0)
        .says("links students.courseIds");
    Run::of(&["--help"], Some(g))
        .exits(0)
        .says("[env: MONGODB_URI]");
    Run::of(&["help", "sync"], Some(g)).exits(0).says("--uri");
    Run::of(&["--uri", &wrong, "--db", db, "plan"], None)
        .exits(3)
        .says("authentication failed");
    Run::of(&["--db", db, "plan"], Some(&nowhere))
        .exits(3)
        .says("cannot reach");
    Run::of(&["--uri", g, "--db", db, "plan", g], None)
        .exits(2)
        .says("mongodb://alice:****@127.0.0.1");
    Run::of(&["--uri", g, "--db", g, "plan"], None).exits(2);
}
