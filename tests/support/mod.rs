//! Test support: a real server (`MONGODB_URI`, or an embedded `secantusd-rs`
//! started once per test binary on a free port with a temporary directory and
//! stopped when the binary exits), a fresh database per test, and a client
//! that counts the commands it sends: a thin layer over `schema-testkit`,
//! a module of each test binary (`tests/it`, `tests/reliability`,
//! `tests/tracing_spans.rs`), which its tests name `crate::support`.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};

use mongodb::{Client, Database};

#[allow(unused_imports)] // each test binary uses some of these
pub use schema_testkit::{failpoint, CommandLog, Failure};
pub mod own_server;

/// The server's URI; panics with the install instructions when the server
/// binary is missing.
pub fn uri() -> String {
    match schema_testkit::server::uri() {
        Ok(uri) => uri,
        Err(e) => panic!("no test server: {e}"),
    }
}

/// This test binary again, set to run nothing but the `#[ignore]`d test
/// `test` of the module whose `module_path!()` is `module`
/// (`--exact --ignored --nocapture --test-threads=1`): for a test that runs
/// another in a process of its own (to kill it, or to have the process to
/// itself). The harness names a test by its module path less the binary's
/// name, so the name follows the file into whichever binary holds it.
pub fn child_test(module: &str, test: &str) -> std::process::Command {
    let name = match module.split_once("::") {
        Some((_binary, path)) => format!("{path}::{test}"),
        None => test.to_owned(),
    };
    let mut command = std::process::Command::new(std::env::current_exe().expect("the test binary"));
    command.args([
        name.as_str(),
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    command
}

/// Runs `child` (a [`child_test`] command) to its end and returns what it
/// printed (standard output, then standard error), printed here too;
/// panics unless it exited with success having run its one test.
pub fn ran_alone(child: &mut std::process::Command) -> String {
    let output = child
        .output()
        .expect("run the test in a process of its own");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{printed}");
    assert!(output.status.success(), "{}: {printed}", output.status);
    assert!(
        printed.contains("test result: ok. 1 passed"),
        "the test ran in its process: {printed}"
    );
    printed
}

/// The process's peak resident set size so far, in KiB (`VmHWM`): the
/// memory tests measure in a process of their own ([`child_test`]).
pub fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// A client for the test server.
pub async fn client() -> Client {
    Client::with_uri_str(uri())
        .await
        .expect("connect to the test server")
}

static NEXT_DB: AtomicU32 = AtomicU32::new(0);

/// A database of its own for one test, dropped first if it exists.
pub async fn fresh_db(client: &Client, test: &str) -> Database {
    let name = format!(
        "t_{}_{}_{}",
        test,
        std::process::id(),
        NEXT_DB.fetch_add(1, Ordering::Relaxed)
    );
    let db = client.database(&name);
    db.drop().await.expect("drop test database");
    db
}

/// A client whose commands are kept whole (names, bodies), for tests that
/// read what was sent ([`CommandLog::keeping_commands`]).
pub async fn keeping_client() -> (Client, CommandLog) {
    let mut options = mongodb::options::ClientOptions::parse(uri())
        .await
        .expect("parse the test server's URI");
    let log = CommandLog::keeping_commands();
    log.record(&mut options);
    let client = Client::with_options(options).expect("a client for the test server");
    (client, log)
}

/// A client whose commands are recorded ([`schema_testkit::counting_client`]).
pub async fn counting_client() -> (Client, CommandLog) {
    counting_client_with(|_| {}).await
}

/// [`counting_client`] with its options adjusted first
/// ([`schema_testkit::counting_client_with`]).
pub async fn counting_client_with(
    configure: impl FnOnce(&mut mongodb::options::ClientOptions),
) -> (Client, CommandLog) {
    match schema_testkit::counting_client_with(configure).await {
        Ok(counting) => counting,
        Err(e) => panic!("no test server: {e}"),
    }
}

/// The index `name` of `collection` as `listIndexes` lists it (`None` when
/// there is none).
pub async fn listed_index(db: &Database, collection: &str, name: &str) -> Option<bson::Document> {
    db.run_command(bson::doc! { "listIndexes": collection })
        .await
        .expect("listIndexes")
        .get_document("cursor")
        .expect("a cursor")
        .get_array("firstBatch")
        .expect("a first batch")
        .iter()
        .filter_map(|i| i.as_document())
        .find(|i| i.get_str("name").is_ok_and(|n| n == name))
        .cloned()
}
