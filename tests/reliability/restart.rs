//! Reliability across a server restart: a stream of two-sided links runs
//! while the server is stopped (a clean shutdown) and started again on the
//! same data directory and port.
//!
//! - While it is down, every helper returns an error, none hangs: each call
//!   answers within [`DOWN_BOUND`] (the retry policy's deadline of 4 s, up
//!   to which a transaction waits for the server, plus the client's
//!   `serverSelectionTimeoutMS` of 2 s for the attempt in flight, plus slack
//!   for a loaded machine).
//! - Afterwards no acknowledged link is lost, no half-link exists (`verify`
//!   is consistent), and links that failed while it was down are either
//!   absent or whole (an in-flight commit's outcome is unknown).

use crate::models;
use crate::support;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bson::doc;
use models::{Course, Student};
use mongodb::options::ClientOptions;
use mongodb::Client;
use schema_core::prelude::*;
use schema_core::{Error, RetryPolicy};
use support::own_server::{start, DataDir};

/// The client gives up selecting a server after this long.
const SELECTION_TIMEOUT_MS: u64 = 2000;
/// No new transaction attempt starts after this long.
const RETRY_DEADLINE: Duration = Duration::from_secs(4);
/// Every helper answers within this while the server is down.
const DOWN_BOUND: Duration = Duration::from_secs(15);
/// The most any waiting step of the test takes.
const STEP_TIMEOUT: Duration = Duration::from_secs(90);

const STUDENTS: usize = 60;
const COURSES: usize = 6;

/// What the stream of links saw.
#[derive(Default)]
struct Seen {
    /// Links that returned `Ok`.
    acked: Vec<(String, String)>,
    /// Links that returned an error, with how long the call took.
    failed: Vec<((String, String), Duration, String)>,
}

/// Waits (bounded) until `cond` holds on what the stream saw.
async fn until(seen: &Arc<Mutex<Seen>>, what: &str, cond: impl Fn(&Seen) -> bool) {
    tokio::time::timeout(STEP_TIMEOUT, async {
        while !cond(&seen.lock().unwrap()) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what}: not within {STEP_TIMEOUT:?}"));
}

/// Runs `call` and asserts it answers within [`DOWN_BOUND`] with an error.
async fn fails_fast<T: std::fmt::Debug>(
    what: &str,
    call: impl std::future::IntoFuture<Output = schema_core::Result<T>>,
) -> String {
    let started = Instant::now();
    let result = tokio::time::timeout(DOWN_BOUND, call.into_future())
        .await
        .unwrap_or_else(|_| panic!("{what} hung while the server was down"));
    let took = started.elapsed();
    let err = result.expect_err(what);
    let kind = match &err {
        Error::Unreachable { .. } => "Unreachable".to_owned(),
        Error::TransactionRetriesExhausted { last, .. } => format!("retries exhausted ({last})"),
        other => other.to_string(),
    };
    let line = format!("{what}: {kind} after {} ms", took.as_millis());
    // A helper that runs a transaction waits for the server until its retry
    // deadline, then gives up with the last `Unreachable`.
    let unreachable = match &err {
        Error::Unreachable { .. } => true,
        Error::TransactionRetriesExhausted { last, .. } => {
            matches!(**last, Error::Unreachable { .. })
        }
        _ => false,
    };
    assert!(unreachable, "{line}: expected `Unreachable`: {err}");
    assert!(
        err.to_string().contains("cannot reach"),
        "{line}: a clear message: {err}"
    );
    line
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_survive_a_restart_and_helpers_fail_fast_while_the_server_is_down() {
    let dir = DataDir::new("restart");
    let mut server = start(&dir, None);
    let port = server.port();
    let mut options = ClientOptions::parse(format!(
        "{}&serverSelectionTimeoutMS={SELECTION_TIMEOUT_MS}&connectTimeoutMS={SELECTION_TIMEOUT_MS}",
        server.uri()
    ))
    .await
    .unwrap();
    // Notice the server is back at the shortest interval the driver allows.
    options.heartbeat_freq = Some(Duration::from_millis(500));
    let client = Client::with_options(options).unwrap();
    let db = client.database("restart");
    models::school::schema().sync(&db).await.unwrap();
    let policy = RetryPolicy {
        deadline: RETRY_DEADLINE,
        ..RetryPolicy::default()
    };
    let students = Repo::<Student>::new(&db).with_retry(policy.clone());
    let courses = Repo::<Course>::new(&db).with_retry(policy.clone());
    for i in 0..STUDENTS {
        students
            .insert(&Student::new(format!("s{i}"), format!("S{i}")))
            .await
            .unwrap();
    }
    for k in 0..COURSES {
        courses
            .insert(&Course::new(format!("c{k}"), format!("C{k}")))
            .await
            .unwrap();
    }
    let links = Links::new(&db, Student::FIELDS.course_ids).with_retry(policy.clone());

    // The stream: one link after another, each edge new.
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let stream = {
        let (links, seen, stop) = (links.clone(), seen.clone(), stop.clone());
        tokio::spawn(async move {
            for i in 0..STUDENTS * COURSES {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let edge = (format!("s{}", i / COURSES), format!("c{}", i % COURSES));
                let started = Instant::now();
                let result = tokio::time::timeout(DOWN_BOUND, links.link(&edge.0, &edge.1))
                    .await
                    .unwrap_or_else(|_| panic!("link {edge:?} hung"));
                let took = started.elapsed();
                let mut seen = seen.lock().unwrap();
                match result {
                    Ok(()) => seen.acked.push(edge),
                    Err(e) => seen.failed.push((edge, took, e.to_string())),
                }
            }
        })
    };

    until(&seen, "40 links before the stop", |s| s.acked.len() >= 40).await;
    let acked_before = seen.lock().unwrap().acked.len();
    let stopping = Instant::now();
    let mut server = tokio::task::spawn_blocking(move || {
        server.stop();
        server
    })
    .await
    .unwrap();
    let stop_took = stopping.elapsed();
    let failed_before = seen.lock().unwrap().failed.len();

    // Down: the stream's links fail, and so does every other helper.
    until(&seen, "2 failed links while down", |s| {
        s.failed.len() >= failed_before + 2
    })
    .await;
    let late = Student::new("late", "Late");
    let (s0, c0) = ("s0".to_owned(), "c0".to_owned());
    let rename = Student::FIELDS.name.set(&"Renamed".to_owned());
    let down = tokio::join!(
        fails_fast("Repo::get", students.get(&s0)),
        fails_fast("Repo::insert", students.insert(&late)),
        fails_fast("Repo::update", students.update(&s0, rename)),
        fails_fast("Repo::delete (cascade)", courses.delete(&c0)),
        fails_fast("Links::unlink", links.unlink(&s0, &c0)),
        fails_fast("Links::verify", links.verify()),
    );
    let down = [down.0, down.1, down.2, down.3, down.4, down.5];

    // Up again on the same data and port.
    drop(server);
    let restarting = Instant::now();
    server = start(&dir, Some(port));
    let acked_at_restart = seen.lock().unwrap().acked.len();
    until(&seen, "20 links after the restart", |s| {
        s.acked.len() >= acked_at_restart + 20
    })
    .await;
    let back_after = restarting.elapsed();
    stop.store(true, Ordering::SeqCst);
    tokio::time::timeout(STEP_TIMEOUT, stream)
        .await
        .expect("the stream ends")
        .unwrap();

    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let acked: BTreeSet<(String, String)> = seen.acked.iter().cloned().collect();
    // Every acknowledged link is there, on both sides.
    let mut stored: BTreeSet<(String, String)> = BTreeSet::new();
    for s in students.find(doc! {}).scan().all().await.unwrap() {
        for c in &s.course_ids {
            stored.insert((s.id.clone(), c.clone()));
        }
    }
    let mut inverse: BTreeSet<(String, String)> = BTreeSet::new();
    for c in courses.find(doc! {}).scan().all().await.unwrap() {
        for s in &c.student_ids {
            inverse.insert((s.clone(), c.id.clone()));
        }
    }
    let lost: Vec<_> = acked.difference(&stored).collect();
    assert!(lost.is_empty(), "acknowledged links lost: {lost:?}");
    assert_eq!(stored, inverse, "both sides agree");
    // Anything else stored is a link that failed while down (outcome unknown).
    let failed: BTreeSet<(String, String)> = seen.failed.iter().map(|f| f.0.clone()).collect();
    let extra: Vec<_> = stored.difference(&acked).collect();
    assert!(
        extra.iter().all(|e| failed.contains(*e)),
        "stored but never linked: {extra:?}"
    );
    let report = links.verify().await.unwrap();
    assert!(report.is_consistent(), "{report:?}");
    assert_eq!(report.edges, stored.len());
    // Nothing written by the helpers that failed while down.
    assert!(students.get(&"late".to_owned()).await.unwrap().is_none());
    assert_eq!(
        students.get(&"s0".to_owned()).await.unwrap().unwrap().name,
        "S0"
    );
    assert!(courses.get(&"c0".to_owned()).await.unwrap().is_some());

    let slowest = seen.failed.iter().map(|f| f.1).max().unwrap_or_default();
    println!(
        "restart: {} links acknowledged ({acked_before} before the stop, {} after the restart), \
         {} failed while down (slowest answer {} ms, bound {} ms), {} of those applied \
         (commit outcome unknown), 0 lost, 0 half-links; stop took {} ms, links succeeded \
         again {} ms after the restart began",
        acked.len(),
        acked.len() - acked_at_restart,
        seen.failed.len(),
        slowest.as_millis(),
        DOWN_BOUND.as_millis(),
        extra.len(),
        stop_took.as_millis(),
        back_after.as_millis(),
    );
    for (edge, took, e) in &seen.failed {
        println!("  link {edge:?} failed after {} ms: {e}", took.as_millis());
    }
    for line in down {
        println!("  {line}");
    }
    drop(server);
}
