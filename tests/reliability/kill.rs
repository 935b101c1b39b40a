//! Reliability across a crash: streams of two-sided links run while the
//! server process is killed with SIGKILL (`kill -9`: no clean shutdown, the
//! write-ahead log is whatever reached the disk), then a server is started
//! on the same data directory, several times over.
//!
//! With `--sync-on-commit` (the launcher's default) no acknowledged link is
//! lost and no half-link exists: the helpers commit with
//! `{ w: "majority", j: true }` and the server fsyncs its log before it
//! answers. Links that failed at the kill are either absent or whole (an
//! in-flight commit's outcome is unknown).
//!
//! The same run without `--sync-on-commit` is a measurement, not a rule the
//! suite enforces (`#[ignore]`d): the server then acknowledges a commit up
//! to ~100 ms before it is on disk. See RELIABILITY.md for both figures and
//! `KILL_ROUNDS` to run more kills.

use crate::models;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bson::doc;
use models::{Course, Student};
use mongodb::options::ClientOptions;
use mongodb::{Client, Database};
use schema_core::prelude::*;
use schema_core::RetryPolicy;
use schema_testkit::server::{Server, ServerOptions};

/// The client gives up selecting a server after this long.
const SELECTION_TIMEOUT_MS: u64 = 2000;
/// No new transaction attempt starts after this long.
const RETRY_DEADLINE: Duration = Duration::from_secs(2);
/// Every link answers within this, even while the server is gone.
const LINK_BOUND: Duration = Duration::from_secs(15);
/// The most any waiting step of the test takes.
const STEP_TIMEOUT: Duration = Duration::from_secs(90);

/// Concurrent streams of links.
const STREAMS: usize = 4;
/// Students and courses new in each round (each round links its own).
const STUDENTS: usize = 120;
const COURSES: usize = 5;
/// Links acknowledged in a round before its kill.
const ACKED_BEFORE_KILL: usize = 150;
/// Kills per run, unless `KILL_ROUNDS` says otherwise.
const ROUNDS: usize = 3;

/// A data directory of the test's own, removed when the test ends.
struct DataDir(PathBuf);

impl DataDir {
    fn new() -> DataDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("schema-core-kill-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        DataDir(dir)
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Starts a server on `dir` (recovering whatever a kill left there).
fn start(dir: &DataDir, sync_on_commit: bool) -> Server {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match Server::start(ServerOptions {
            data_dir: Some(dir.0.clone()),
            sync_on_commit,
            ..Default::default()
        }) {
            Ok(server) => return server,
            Err(e) if Instant::now() < deadline => {
                eprintln!("start: {e}; retrying");
                std::thread::sleep(Duration::from_millis(500));
            }
            Err(e) => panic!("the server did not start on the killed data: {e}"),
        }
    }
}

async fn connect(server: &Server) -> Client {
    let options = ClientOptions::parse(format!(
        "{}&serverSelectionTimeoutMS={SELECTION_TIMEOUT_MS}&connectTimeoutMS={SELECTION_TIMEOUT_MS}",
        server.uri()
    ))
    .await
    .unwrap();
    Client::with_options(options).unwrap()
}

fn links(db: &Database) -> Links<Student, Vec<String>, Course> {
    let policy = RetryPolicy {
        deadline: RETRY_DEADLINE,
        ..RetryPolicy::default()
    };
    Links::new(db, Student::FIELDS.course_ids).with_retry(policy)
}

type Edge = (String, String);

/// What the streams saw.
#[derive(Default)]
struct Seen {
    /// Links that returned `Ok`: acknowledged.
    acked: Vec<Edge>,
    /// Links that returned an error (at or after the kill).
    failed: Vec<Edge>,
}

/// What one kill cost, read back from the restarted server.
struct Round {
    acked: usize,
    failed: usize,
    lost: usize,
    half: usize,
    failed_but_stored: usize,
    kill_took: Duration,
}

/// Runs `rounds` kills under streams of links and returns each round's figures.
/// Every round checks there is no half-link; `lost` is returned, not checked.
async fn run(sync_on_commit: bool, rounds: usize) -> Vec<Round> {
    let dir = DataDir::new();
    let mut server = start(&dir, sync_on_commit);
    let mut all_acked: BTreeSet<Edge> = BTreeSet::new();
    let mut all_failed: BTreeSet<Edge> = BTreeSet::new();
    let mut figures = Vec::new();
    for round in 0..rounds {
        let client = connect(&server).await;
        let db = client.database("kill");
        if round == 0 {
            models::school::schema().sync(&db).await.unwrap();
        }
        let students = Repo::<Student>::new(&db);
        let courses = Repo::<Course>::new(&db);
        for i in 0..STUDENTS {
            students
                .insert(&Student::new(format!("r{round}s{i}"), "S"))
                .await
                .unwrap();
        }
        for k in 0..COURSES {
            courses
                .insert(&Course::new(format!("r{round}c{k}"), "C"))
                .await
                .unwrap();
        }

        let seen = Arc::new(Mutex::new(Seen::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let streams: Vec<_> = (0..STREAMS)
            .map(|n| {
                let (links, seen, stop) = (links(&db), seen.clone(), stop.clone());
                tokio::spawn(async move {
                    for i in (n..STUDENTS * COURSES).step_by(STREAMS) {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        let edge = (
                            format!("r{round}s{}", i / COURSES),
                            format!("r{round}c{}", i % COURSES),
                        );
                        let result = tokio::time::timeout(LINK_BOUND, links.link(&edge.0, &edge.1))
                            .await
                            .unwrap_or_else(|_| panic!("link {edge:?} hung"));
                        let mut seen = seen.lock().unwrap();
                        match result {
                            Ok(()) => seen.acked.push(edge),
                            Err(_) => seen.failed.push(edge),
                        }
                    }
                })
            })
            .collect();

        tokio::time::timeout(STEP_TIMEOUT, async {
            while seen.lock().unwrap().acked.len() < ACKED_BEFORE_KILL {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("links acknowledged before the kill");
        let killing = Instant::now();
        let killed = tokio::task::spawn_blocking(move || {
            server.kill().expect("kill -9 the server");
            server
        })
        .await
        .unwrap();
        let kill_took = killing.elapsed();
        stop.store(true, Ordering::SeqCst);
        for stream in streams {
            tokio::time::timeout(STEP_TIMEOUT, stream)
                .await
                .expect("the stream ends")
                .unwrap();
        }
        drop(client);
        let seen = std::mem::take(&mut *seen.lock().unwrap());
        all_acked.extend(seen.acked.iter().cloned());
        all_failed.extend(seen.failed.iter().cloned());
        drop(killed);

        // Up again on the killed data: read every link back, both sides.
        server = start(&dir, sync_on_commit);
        let client = connect(&server).await;
        let db = client.database("kill");
        let mut stored: BTreeSet<Edge> = BTreeSet::new();
        for s in Repo::<Student>::new(&db)
            .find(doc! {})
            .scan()
            .all()
            .await
            .unwrap()
        {
            for c in &s.course_ids {
                stored.insert((s.id.clone(), c.clone()));
            }
        }
        let mut inverse: BTreeSet<Edge> = BTreeSet::new();
        for c in Repo::<Course>::new(&db)
            .find(doc! {})
            .scan()
            .all()
            .await
            .unwrap()
        {
            for s in &c.student_ids {
                inverse.insert((s.clone(), c.id.clone()));
            }
        }
        let half = stored.symmetric_difference(&inverse).count();
        assert_eq!(half, 0, "round {round}: half-links after the kill");
        let report = links(&db).verify().await.unwrap();
        assert!(report.is_consistent(), "round {round}: {report:?}");
        let extra: Vec<_> = stored.difference(&all_acked).collect();
        assert!(
            extra.iter().all(|e| all_failed.contains(*e)),
            "round {round}: stored but never linked: {extra:?}"
        );
        let lost = all_acked.difference(&stored).count();
        figures.push(Round {
            acked: seen.acked.len(),
            failed: seen.failed.len(),
            lost,
            half,
            failed_but_stored: seen.failed.iter().filter(|e| stored.contains(*e)).count(),
            kill_took,
        });
        // Links lost in an earlier round stay lost: count each once.
        all_acked.retain(|e| stored.contains(e));
    }
    drop(server);
    figures
}

fn rounds() -> usize {
    std::env::var("KILL_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(ROUNDS)
}

fn print(mode: &str, figures: &[Round]) -> usize {
    let lost: usize = figures.iter().map(|r| r.lost).sum();
    let acked: usize = figures.iter().map(|r| r.acked).sum();
    println!(
        "kill -9 {mode}: {} kills, {acked} links acknowledged, {lost} acknowledged links lost, \
         {} half-links",
        figures.len(),
        figures.iter().map(|r| r.half).sum::<usize>(),
    );
    for (n, r) in figures.iter().enumerate() {
        println!(
            "  kill {}: {} acknowledged, {} lost; {} failed at the kill ({} of them stored \
             whole: outcome unknown); kill -9 took {} ms",
            n + 1,
            r.acked,
            r.lost,
            r.failed,
            r.failed_but_stored,
            r.kill_took.as_millis()
        );
    }
    lost
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_sync_on_commit_a_kill_loses_no_acknowledged_link_and_leaves_no_half_link() {
    let figures = run(true, rounds()).await;
    let lost = print("with --sync-on-commit", &figures);
    assert_eq!(lost, 0, "acknowledged links lost to kill -9");
}

/// The measurement behind RELIABILITY.md's "without" figure:
/// `cargo test --test reliability -- --ignored --nocapture kill::without`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: without --sync-on-commit a kill loses acknowledged links"]
async fn without_sync_on_commit_a_kill_loses_acknowledged_links_but_leaves_no_half_link() {
    let figures = run(false, rounds()).await;
    print("without --sync-on-commit", &figures);
}
