//! The workspace's one command-counting client (`schema_testkit::
//! counting_client`): it records every command by name (an explicit `hello`
//! included), the commands that fail (with their labels) and the commands
//! that succeed with a write-concern error, and it takes options (an
//! `appName` a failpoint can target).

use crate::support;

use bson::{doc, Document as BsonDocument};
use support::failpoint::{self, FAILPOINT};
use support::Failure;

#[tokio::test]
async fn every_command_is_recorded_by_name_and_operations_leave_out_hello() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "log_names").await;
    log.clear();
    client
        .database("admin")
        .run_command(doc! { "hello": 1 })
        .await
        .unwrap();
    let coll = db.collection::<BsonDocument>("items");
    coll.insert_one(doc! { "_id": 1 }).await.unwrap();
    coll.find_one(doc! { "_id": 1 }).await.unwrap();
    assert_eq!(log.names(), ["hello", "insert", "find"]);
    assert_eq!(log.count(), 3);
    assert_eq!(log.operations(), ["insert", "find"]);
    assert_eq!(log.take(), ["hello", "insert", "find"]);
    assert!(log.names().is_empty(), "take forgets what it returned");
    coll.find_one(doc! {}).await.unwrap();
    assert_eq!(log.take_operations(), ["find"]);
    assert_eq!(log.count(), 0);
}

#[tokio::test]
async fn failures_and_write_concern_errors_are_recorded_for_the_named_client() {
    let _turn = FAILPOINT.lock().await;
    let app = "log_failures";
    let (admin, admin_log) = support::counting_client().await;
    let (client, log) =
        support::counting_client_with(|options| options.app_name = Some(app.to_owned())).await;
    let db = support::fresh_db(&admin, app).await;
    let coll = client
        .database(db.name())
        .collection::<BsonDocument>("items");

    failpoint::conflict(&admin, app, 1, &["find"]).await;
    let refused = coll.find_one(doc! {}).await;
    failpoint::off(&admin).await;
    assert!(refused.is_err(), "the failpoint fails the find");
    let failures = log.take_failures();
    assert!(
        matches!(failures.as_slice(), [f @ Failure::Command { command, .. }]
            if command == "find" && f.has_label("TransientTransactionError")),
        "{failures:?}"
    );
    assert!(log.failures().is_empty(), "take_failures forgets them");

    failpoint::arm(
        &admin,
        app,
        doc! { "times": 1 },
        doc! {
            "failCommands": ["insert"],
            "writeConcernError": { "code": 64, "errmsg": "waiting for replication timed out" },
        },
    )
    .await;
    let answered = coll.insert_one(doc! { "_id": 1 }).await;
    failpoint::off(&admin).await;
    assert!(answered.is_err(), "a write-concern error is an error");
    let failures = log.take_failures();
    assert!(
        matches!(failures.as_slice(), [Failure::WriteConcern { command, .. }] if command == "insert"),
        "{failures:?}"
    );
    assert_eq!(failures[0].command(), "insert");
    assert!(failures[0].to_string().contains("writeConcernError"));
    // The failpoint targets the named client alone.
    assert!(
        admin_log.failures().is_empty(),
        "{:?}",
        admin_log.failures()
    );
}
