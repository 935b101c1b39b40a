//! Test support: a real server (`MONGODB_URI`, or an embedded `secantusd-rs`
//! started once per test binary on a free port with a temporary directory and
//! stopped when the binary exits), a fresh database per test, and a client
//! that counts the commands it sends: a thin layer over `schema-testkit`,
//! kept so that every test file can `mod support;`.
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
