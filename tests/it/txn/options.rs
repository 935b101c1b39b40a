//! The options transactions are sent with, read off the wire (command
//! monitoring): the helpers' own transactions commit with
//! `{ w: "majority", j: true }` unless given options, and then with the
//! options given (write concern, read concern, `maxCommitTimeMS`); a
//! transaction of the caller's commits with the options the caller chose.

use crate::models;
use crate::support;

use std::time::Duration;

use bson::{doc, Bson, Document as BsonDocument};
use models::{Course, Student};
use mongodb::options::{Acknowledgment, ReadConcern, TransactionOptions, WriteConcern};
use mongodb::{Client, Database};
use schema_core::prelude::*;
use schema_core::{helper_options, transaction};
use schema_testkit::{CommandLog, Sent};

/// A client whose whole commands are kept, on a school with one course.
async fn school(name: &str) -> (Client, CommandLog, Database) {
    let (client, log) = support::keeping_client().await;
    let db = support::fresh_db(&client, name).await;
    models::school::schema().sync(&db).await.unwrap();
    Repo::<Course>::new(&db)
        .insert(&Course::new("c0".to_owned(), "Course 0".to_owned()))
        .await
        .unwrap();
    for s in ["s0", "s1"] {
        Repo::<Student>::new(&db)
            .insert(&Student::new(s.to_owned(), s.to_owned()))
            .await
            .unwrap();
    }
    log.clear();
    (client, log, db)
}

/// The commands sent to link `student` to `c0`.
async fn linked(
    links: &Links<Student, Vec<String>, Course>,
    log: &CommandLog,
    student: &str,
) -> Vec<Sent> {
    links
        .link(&student.to_owned(), &"c0".to_owned())
        .await
        .unwrap();
    log.take_sent()
}

/// The sent command named `name` (the only one, or the last).
fn last<'a>(sent: &'a [Sent], name: &str) -> &'a BsonDocument {
    &sent
        .iter()
        .rev()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no {name} in {:?}", names(sent)))
        .command
}

fn names(sent: &[Sent]) -> Vec<&str> {
    sent.iter().map(|s| s.name.as_str()).collect()
}

/// The first command of the transaction: the one with `startTransaction`.
fn first_in_transaction(sent: &[Sent]) -> &BsonDocument {
    &sent
        .iter()
        .find(|s| s.command.get_bool("startTransaction").unwrap_or(false))
        .expect("a command starts the transaction")
        .command
}

fn caller_options() -> TransactionOptions {
    TransactionOptions::builder()
        .write_concern(
            WriteConcern::builder()
                .w(Acknowledgment::Nodes(1))
                .w_timeout(Duration::from_millis(2500))
                .build(),
        )
        .read_concern(ReadConcern::majority())
        .max_commit_time(Duration::from_millis(7000))
        .build()
}

#[tokio::test]
async fn the_helpers_own_transactions_commit_with_majority_and_journal_by_default() {
    let (_client, log, db) = school("txn_options_default").await;
    let links = Links::new(&db, Student::FIELDS.course_ids);
    let sent = linked(&links, &log, "s0").await;
    let commit = last(&sent, "commitTransaction");
    assert_eq!(
        commit.get_document("writeConcern").unwrap(),
        &doc! { "w": "majority", "j": true },
        "{commit}"
    );
    assert!(!commit.contains_key("maxTimeMS"), "{commit}");
    assert!(!first_in_transaction(&sent).contains_key("readConcern"));
    assert_eq!(
        links.transaction_options().write_concern,
        helper_options().write_concern
    );

    // The cascading delete of a linked student: its own transaction too.
    let students = Repo::<Student>::new(&db);
    students.delete(&"s0".to_owned()).await.unwrap();
    let sent = log.take_sent();
    assert!(
        names(&sent).contains(&"commitTransaction"),
        "{:?}",
        names(&sent)
    );
    assert_eq!(
        last(&sent, "commitTransaction")
            .get_document("writeConcern")
            .unwrap(),
        &doc! { "w": "majority", "j": true }
    );
}

#[tokio::test]
async fn options_given_to_a_helper_win_over_its_default() {
    let (_client, log, db) = school("txn_options_given").await;
    let links =
        Links::new(&db, Student::FIELDS.course_ids).with_transaction_options(caller_options());
    let sent = linked(&links, &log, "s1").await;
    let commit = last(&sent, "commitTransaction");
    assert_eq!(
        commit.get_document("writeConcern").unwrap(),
        &doc! { "w": 1, "wtimeout": 2500 },
        "{commit}"
    );
    assert_eq!(
        commit.get("maxTimeMS"),
        Some(&Bson::Int32(7000)),
        "{commit}"
    );
    assert_eq!(
        first_in_transaction(&sent)
            .get_document("readConcern")
            .unwrap(),
        &doc! { "level": "majority" }
    );

    // Options without a write concern keep the helpers' durable one.
    let students = Repo::<Student>::new(&db).with_transaction_options(
        TransactionOptions::builder()
            .max_commit_time(Duration::from_millis(9000))
            .build(),
    );
    students.delete(&"s1".to_owned()).await.unwrap();
    let sent = log.take_sent();
    let commit = last(&sent, "commitTransaction");
    assert_eq!(
        commit.get_document("writeConcern").unwrap(),
        &doc! { "w": "majority", "j": true },
        "{commit}"
    );
    assert_eq!(
        commit.get("maxTimeMS"),
        Some(&Bson::Int32(9000)),
        "{commit}"
    );
}

#[tokio::test]
async fn a_transaction_of_the_callers_sends_the_options_it_chose() {
    let (client, log, db) = school("txn_options_caller").await;
    let courses = Repo::<Course>::new(&db);
    let links = Links::new(&db, Student::FIELDS.course_ids);
    transaction(&client)
        .options(caller_options())
        .run(async |s| {
            courses.get(&"c0".to_owned()).session(&mut *s).await?;
            // A helper joining the caller's transaction commits with it.
            links
                .link(&"s0".to_owned(), &"c0".to_owned())
                .session(s)
                .await
        })
        .await
        .unwrap();
    let sent = log.take_sent();
    assert_eq!(
        names(&sent)
            .iter()
            .filter(|n| **n == "commitTransaction")
            .count(),
        1,
        "one commit: {:?}",
        names(&sent)
    );
    let commit = last(&sent, "commitTransaction");
    assert_eq!(
        commit.get_document("writeConcern").unwrap(),
        &doc! { "w": 1, "wtimeout": 2500 }
    );
    assert_eq!(commit.get("maxTimeMS"), Some(&Bson::Int32(7000)));
    assert_eq!(
        first_in_transaction(&sent)
            .get_document("readConcern")
            .unwrap(),
        &doc! { "level": "majority" }
    );

    // With the helpers' options chosen, as durable as theirs.
    transaction(&client)
        .options(helper_options())
        .run(async |s| courses.get(&"c0".to_owned()).session(s).await)
        .await
        .unwrap();
    let sent = log.take_sent();
    assert_eq!(
        last(&sent, "commitTransaction")
            .get_document("writeConcern")
            .unwrap(),
        &doc! { "w": "majority", "j": true }
    );
}
