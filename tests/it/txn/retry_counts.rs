//! Retry counts belong to the helper that retried: `Links::retries` and
//! `Repo::retries` count the transaction attempts that one helper (and its
//! clones) ran again after a transient error, so a figure read from one is
//! not moved by another helper's retries, however many run in the process.

use crate::models;
use crate::support;

use bson::doc;
use models::{Course, Student};
use mongodb::options::ClientOptions;
use mongodb::{Client, Database};
use schema_core::prelude::*;
use support::failpoint::{self, FAILPOINT};

/// A client with its own `appName`, so a failpoint fails its commands alone.
async fn named_client(app: &str) -> Client {
    let mut options = ClientOptions::parse(support::uri()).await.unwrap();
    options.app_name = Some(app.to_owned());
    Client::with_options(options).unwrap()
}

async fn school(db: &Database) {
    models::school::schema().sync(db).await.unwrap();
    let students = Repo::<Student>::new(db);
    let courses = Repo::<Course>::new(db);
    for i in 0..3 {
        students
            .insert(&Student::new(format!("s{i}"), format!("S{i}")))
            .await
            .unwrap();
    }
    courses
        .insert(&Course::new("c0".to_owned(), "Course 0".to_owned()))
        .await
        .unwrap();
}

fn id(s: &str) -> String {
    s.to_owned()
}

#[tokio::test]
async fn each_helper_counts_its_own_retries_shared_with_its_clones() {
    let _turn = FAILPOINT.lock().await;
    let app = "retry_counts";
    let client = named_client(app).await;
    let db = support::fresh_db(&client, app).await;
    school(&db).await;

    let links = Links::new(&db, Student::FIELDS.course_ids);
    let clone = links.clone();
    let other = Links::new(&db, Student::FIELDS.course_ids);
    let students = Repo::<Student>::new(&db);
    assert_eq!(
        (links.retries(), other.retries(), students.retries()),
        (0, 0, 0)
    );

    // Two attempts fail on their first update: the link runs three times.
    failpoint::conflict(&client, app, 2, &["update"]).await;
    let linked = links.link(&id("s0"), &id("c0")).await;
    failpoint::off(&client).await;
    linked.unwrap();
    assert_eq!(links.retries(), 2, "the helper that retried");
    assert_eq!(clone.retries(), 2, "its clone shares the count");
    assert_eq!(other.retries(), 0, "another helper on the same field");
    assert_eq!(students.retries(), 0, "a repository");

    // The other helper's clean link and a retry through the clone.
    other.link(&id("s1"), &id("c0")).await.unwrap();
    assert_eq!(other.retries(), 0);
    failpoint::conflict(&client, app, 1, &["update"]).await;
    let linked = clone.link(&id("s2"), &id("c0")).await;
    failpoint::off(&client).await;
    linked.unwrap();
    assert_eq!((links.retries(), other.retries()), (3, 0));

    // A commit whose outcome is unknown: the commit alone runs again, once.
    failpoint::arm(
        &client,
        app,
        doc! { "times": 1 },
        doc! {
            "failCommands": ["commitTransaction"], "errorCode": 91,
            "errorLabels": ["UnknownTransactionCommitResult"],
        },
    )
    .await;
    let unlinked = other.unlink(&id("s1"), &id("c0")).await;
    failpoint::off(&client).await;
    unlinked.unwrap();
    assert_eq!((links.retries(), other.retries()), (3, 1));

    // A cascading delete is the repository's transaction: its retry counts
    // there, not in the links.
    failpoint::conflict(&client, app, 1, &["update"]).await;
    let deleted = students.delete(&id("s0")).await;
    failpoint::off(&client).await;
    assert!(deleted.unwrap());
    assert_eq!(students.retries(), 1);
    assert_eq!((links.retries(), other.retries()), (3, 1));
    let course = Repo::<Course>::new(&db)
        .get(&id("c0"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(course.student_ids, [id("s2")], "the cascade applied once");
}

#[tokio::test]
async fn a_helper_that_never_retried_reads_zero_while_others_retry() {
    // Runs alongside the test above in the same process: a process-wide
    // figure would move under it.
    let client = support::client().await;
    let db = support::fresh_db(&client, "retry_counts_quiet").await;
    school(&db).await;
    let links = Links::new(&db, Student::FIELDS.course_ids);
    for s in ["s0", "s1", "s2"] {
        links.link(&id(s), &id("c0")).await.unwrap();
        links.unlink(&id(s), &id("c0")).await.unwrap();
        assert_eq!(links.retries(), 0);
    }
}
