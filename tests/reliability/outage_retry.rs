//! A transaction rides out a short outage: links started while the server is
//! down, with the default `RetryPolicy`, succeed once it is back, each
//! written exactly once on both sides.
//!
//! The client gives up selecting a server after 2 s, shorter than the 5 s
//! outage, so each attempt fails and only the retry on the error's
//! `TransientTransactionError` label (kept through the helpers' error
//! conversion) brings the link through. One link comes from a fresh `Links`,
//! whose first step (asking the server once whether it runs transactions)
//! meets the outage; the other from a `Links` that has linked before, whose
//! transaction body does.
//!
//! Also measured here: how long a link takes when its commit fails once with
//! "shutting down" (91), which makes the driver mark the server unknown and
//! wait for its monitor's next check (`heartbeatFrequencyMS`) before sending
//! again.

use crate::models;
use crate::support;

use std::time::{Duration, Instant};

use bson::doc;
use models::{Course, Student};
use mongodb::options::ClientOptions;
use mongodb::Client;
use schema_core::prelude::*;
use support::own_server::{start, DataDir};

/// The client gives up selecting a server after this long.
const SELECTION_TIMEOUT_MS: u64 = 2000;
/// How long the server stays down.
const OUTAGE: Duration = Duration::from_secs(5);
/// The most any link may take in this test (the default policy's deadline
/// is 120 s; the outage is 5 s).
const LINK_TIMEOUT: Duration = Duration::from_secs(60);

async fn client_for(uri: &str, tune: impl FnOnce(&mut ClientOptions)) -> Client {
    let mut options = ClientOptions::parse(uri).await.unwrap();
    tune(&mut options);
    Client::with_options(options).unwrap()
}

/// `(student, its course ids)` and `(course, its student ids)`, as stored.
async fn sides(db: &mongodb::Database) -> (Vec<(String, Vec<String>)>, Vec<(String, Vec<String>)>) {
    let students = Repo::<Student>::new(db)
        .find(doc! {})
        .scan()
        .all()
        .await
        .unwrap();
    let courses = Repo::<Course>::new(db)
        .find(doc! {})
        .scan()
        .all()
        .await
        .unwrap();
    (
        students.into_iter().map(|s| (s.id, s.course_ids)).collect(),
        courses.into_iter().map(|c| (c.id, c.student_ids)).collect(),
    )
}

fn pair(id: &str, ids: &[&str]) -> (String, Vec<String>) {
    (id.to_owned(), ids.iter().map(|s| (*s).to_owned()).collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_started_while_the_server_is_down_succeed_once_it_is_back() {
    let dir = DataDir::new("outage");
    let mut server = start(&dir, None);
    let port = server.port();
    let uri = format!(
        "{}&serverSelectionTimeoutMS={SELECTION_TIMEOUT_MS}&connectTimeoutMS={SELECTION_TIMEOUT_MS}",
        server.uri()
    );
    // The driver's default heartbeat (10 s): a waiting server selection asks
    // its monitor to check at once anyway.
    let client = client_for(&uri, |_| {}).await;
    let db = client.database("outage");
    models::school::schema().sync(&db).await.unwrap();
    let students = Repo::<Student>::new(&db);
    for id in ["s1", "s2", "s3"] {
        students.insert(&Student::new(id, id)).await.unwrap();
    }
    Repo::<Course>::new(&db)
        .insert(&Course::new("c1", "C1"))
        .await
        .unwrap();
    // Linked before the outage: its transaction-support check is behind it.
    let warm = Links::new(&db, Student::FIELDS.course_ids);
    warm.link(&"s3".to_owned(), &"c1".to_owned()).await.unwrap();

    // Down.
    let stopping = Instant::now();
    server = tokio::task::spawn_blocking(move || {
        server.stop();
        server
    })
    .await
    .unwrap();
    let down_at = Instant::now();
    let stop_took = down_at - stopping;
    let link = |links: Links<Student, Vec<String>, Course>, student: &'static str| {
        tokio::spawn(async move {
            let started = Instant::now();
            let result = tokio::time::timeout(
                LINK_TIMEOUT,
                links.link(&student.to_owned(), &"c1".to_owned()),
            )
            .await;
            (result, started.elapsed())
        })
    };
    let fresh = link(Links::new(&db, Student::FIELDS.course_ids), "s1");
    let warmed = link(warm.clone(), "s2");

    // Up again after the outage, on the same data and port.
    tokio::time::sleep(OUTAGE.saturating_sub(down_at.elapsed())).await;
    assert!(
        !fresh.is_finished() && !warmed.is_finished(),
        "the links must still be waiting for the server when it comes back"
    );
    drop(server);
    let restarting = Instant::now();
    let server = start(&dir, Some(port));
    let restart_took = restarting.elapsed();

    let (fresh, fresh_took) = fresh.await.unwrap();
    let (warmed, warmed_took) = warmed.await.unwrap();
    fresh
        .expect("the fresh link answers within the test's bound")
        .expect("the fresh link rides out the outage");
    warmed
        .expect("the warmed link answers within the test's bound")
        .expect("the warmed link rides out the outage");

    // Written exactly once, on both sides.
    let (by_student, by_course) = sides(&db).await;
    assert_eq!(
        by_student,
        [
            pair("s1", &["c1"]),
            pair("s2", &["c1"]),
            pair("s3", &["c1"])
        ]
    );
    assert_eq!(by_course.len(), 1);
    let mut held = by_course[0].1.clone();
    held.sort();
    assert_eq!(held, ["s1", "s2", "s3"], "{by_course:?}");
    let report = warm.verify().await.unwrap();
    assert!(report.is_consistent(), "{report:?}");

    println!(
        "outage: server down {} ms (stop took {} ms, restart {} ms); a link from a fresh \
         `Links` took {} ms, from a warmed one {} ms, both Ok, each written once on both sides",
        OUTAGE.as_millis(),
        stop_took.as_millis(),
        restart_took.as_millis(),
        fresh_took.as_millis(),
        warmed_took.as_millis(),
    );
    drop(server);
}

/// One link whose commit fails once with "shutting down" (91, labelled
/// `UnknownTransactionCommitResult`), on a client checking the server every
/// `heartbeat`: how long it takes, and that it applied once.
async fn link_after_a_commit_error(heartbeat: Option<Duration>, app: &str) -> Duration {
    let admin = support::client().await;
    let client = client_for(&support::uri(), |o| {
        o.app_name = Some(app.to_owned());
        o.heartbeat_freq = heartbeat;
    })
    .await;
    let db = support::fresh_db(&client, app).await;
    models::school::schema().sync(&db).await.unwrap();
    Repo::<Student>::new(&db)
        .insert(&Student::new("s1", "S1"))
        .await
        .unwrap();
    Repo::<Course>::new(&db)
        .insert(&Course::new("c1", "C1"))
        .await
        .unwrap();
    let links = Links::new(&db, Student::FIELDS.course_ids);
    // The topology check is behind it: only the link's own commands are timed.
    links.verify().await.unwrap();
    let _turn = support::failpoint::FAILPOINT.lock().await;
    support::failpoint::arm(
        &admin,
        app,
        doc! { "times": 1 },
        doc! {
            "failCommands": ["commitTransaction"],
            "errorCode": 91,
            "errorLabels": ["UnknownTransactionCommitResult"],
        },
    )
    .await;
    let started = Instant::now();
    let result =
        tokio::time::timeout(LINK_TIMEOUT, links.link(&"s1".to_owned(), &"c1".to_owned())).await;
    let took = started.elapsed();
    support::failpoint::off(&admin).await;
    result.expect("answers in time").expect("the link succeeds");
    let (by_student, by_course) = sides(&db).await;
    assert_eq!(by_student, [pair("s1", &["c1"])]);
    assert_eq!(by_course, [pair("c1", &["s1"])]);
    took
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_error_that_marks_the_server_unknown_waits_for_the_next_heartbeat() {
    let default = link_after_a_commit_error(None, "hb_default").await;
    let fast = link_after_a_commit_error(Some(Duration::from_millis(500)), "hb_500ms").await;
    println!(
        "a link whose commit fails once with code 91: {} ms with the default \
         heartbeatFrequencyMS (10 s), {} ms with 500 ms",
        default.as_millis(),
        fast.as_millis()
    );
}
