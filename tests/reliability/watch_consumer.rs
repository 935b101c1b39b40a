//! Named consumers (`Consumer`) across kills: a consumer process killed
//! with SIGKILL at random points while 10,000 changes arrive, its handler's
//! writes not idempotent (a `$inc` per change and a row per change with no
//! unique key), restarted until it caught up: each change applied exactly
//! once. Two instances of one consumer, the holder of the lease killed:
//! the other takes over within the lease's bound, each change handled once.
//! And a holder paused (SIGSTOP) past its lease: the other takes over, and
//! the paused one, woken, handles nothing more.
//!
//! The consumers run in child processes (this test binary again, running
//! only [`consuming_child`]). The server is the test's own, with
//! transactions that outlive their client aborted after 2 s
//! (`transactionLifetimeLimitSeconds`, 60 by default): a child killed
//! inside a handler's transaction holds the position's document until then.
//! `CONSUMER_KILL_SEED` fixes the random points (otherwise drawn and
//! printed).

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bson::{doc, Document as BsonDocument};
use mongodb::{Client, Database};
use schema_core::prelude::*;
use schema_core::{Change, Consumer, Lease, CONSUMERS};
use serde::{Deserialize, Serialize};

use crate::draw::{seed, Draw};
use crate::support;
use crate::support::own_server::{self, DataDir};

/// The environment variable that makes the test binary a consuming child.
const CHILD: &str = "CONSUMER_CHILD_DB";
/// The consumer's lease in the children, in milliseconds.
pub(crate) const LEASE_MS: &str = "CONSUMER_CHILD_LEASE_MS";
/// How long a child's handler waits inside its transaction, after its
/// writes, in milliseconds (none when unset): a kill then lands inside it.
const STALL_MS: &str = "CONSUMER_CHILD_STALL_MS";
/// Changes of the kill test.
const CHANGES: usize = 10_000;
/// Kills before the last child runs to the end.
const KILLS: u32 = 6;
/// The server's lifetime of a transaction its client abandoned, seconds.
const TXN_LIFETIME_S: i32 = 2;
/// The most any waiting step takes.
pub(crate) const STEP: Duration = Duration::from_secs(180);

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "consumed_orders")]
struct Order {
    #[serde(rename = "_id")]
    id: String,
    status: String,
}

pub(crate) fn lease(ms: u64) -> Lease {
    Lease::default()
        .duration(Duration::from_millis(ms))
        .renew_every(Duration::from_millis(ms / 4))
        .poll_every(Duration::from_millis(100))
}

/// The consuming child: runs only when the parent starts it. Prints its
/// holder id, then handles changes until killed.
#[tokio::test]
#[ignore = "the child process of the consumer tests killed with SIGKILL"]
async fn consuming_child() {
    let Ok(db_name) = std::env::var(CHILD) else {
        return;
    };
    let lease_ms: u64 = std::env::var(LEASE_MS).unwrap().parse().unwrap();
    let client = support::client().await;
    let db = client.database(&db_name);
    let consumer = Consumer::new("counter", &Repo::<Order>::new(&db)).lease(lease(lease_ms));
    let stall = std::env::var(STALL_MS)
        .ok()
        .map(|ms| Duration::from_millis(ms.parse().unwrap()));
    println!("holder {}", consumer.holder());
    let holder = consumer.holder().to_owned();
    let (counts, rows) = (
        db.collection::<BsonDocument>("counts"),
        db.collection::<BsonDocument>("rows"),
    );
    consumer
        .run(
            (&counts, &rows, &holder, stall),
            |s, (counts, rows, holder, stall), e| {
                Box::pin(async move {
                    if let Change::Insert(o) = &e.change {
                        counts
                            .update_one(doc! { "_id": "changes" }, doc! { "$inc": { "n": 1 } })
                            .upsert(true)
                            .session(&mut *s)
                            .await?;
                        rows.insert_one(doc! { "order": &o.id, "by": &**holder })
                            .session(&mut *s)
                            .await?;
                        if let Some(stall) = stall {
                            tokio::time::sleep(*stall).await;
                        }
                    }
                    Ok(())
                })
            },
        )
        .await
        .expect("the consumer's run");
}

/// Starts a consuming child on `uri`, and reads its holder id.
fn start_child(uri: &str, db: &str, lease_ms: u64) -> (Child, String) {
    start_stalling_child(uri, db, lease_ms, None)
}

/// Starts a consuming child whose handler waits `stall_ms` inside its
/// transaction after its writes.
pub(crate) fn start_stalling_child(
    uri: &str,
    db: &str,
    lease_ms: u64,
    stall_ms: Option<u64>,
) -> (Child, String) {
    let stall = stall_ms.map(|ms| ms.to_string());
    let mut env = vec![(CHILD, db)];
    env.extend(stall.as_deref().map(|ms| (STALL_MS, ms)));
    start_child_of(module_path!(), "consuming_child", &env, uri, lease_ms)
}

/// Starts the child test `test` of `module` on `uri` with `env` and the
/// lease `lease_ms`, and reads the holder id it prints first
/// (`holder <id>`).
pub(crate) fn start_child_of(
    module: &str,
    test: &str,
    env: &[(&str, &str)],
    uri: &str,
    lease_ms: u64,
) -> (Child, String) {
    let mut child = support::child_test(module, test)
        .envs(env.iter().copied())
        .env(LEASE_MS, lease_ms.to_string())
        .env("MONGODB_URI", uri)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start a child");
    let mut lines = BufReader::new(child.stdout.take().expect("its stdout")).lines();
    let holder = lines
        // The harness may print the test's name first, on the same line.
        .find_map(|l| Some(l.ok()?.split_once("holder ")?.1.to_owned()))
        .expect("the child's holder id");
    // The rest of its output, drained so that it never blocks.
    std::thread::spawn(move || lines.for_each(drop));
    (child, holder)
}

pub(crate) fn kill(mut child: Child) {
    child.kill().expect("SIGKILL the child");
    child.wait().expect("the child's exit");
}

async fn own_server(what: &str) -> (DataDir, schema_testkit::server::Server, Client) {
    let dir = DataDir::new(what);
    let server = own_server::start(&dir, None);
    let client = Client::with_uri_str(server.uri()).await.unwrap();
    client
        .database("admin")
        .run_command(doc! { "setParameter": 1, "transactionLifetimeLimitSeconds": TXN_LIFETIME_S })
        .await
        .unwrap();
    (dir, server, client)
}

async fn position(db: &Database) -> BsonDocument {
    db.collection::<BsonDocument>(CONSUMERS)
        .find_one(doc! { "_id": "counter" })
        .await
        .unwrap()
        .unwrap_or_default()
}

/// Waits until the consumer holds a position, held by `holder`.
async fn started(db: &Database, holder: &str) {
    let deadline = Instant::now() + STEP;
    loop {
        let p = position(db).await;
        if p.get_str("holder").ok() == Some(holder) && p.get_document("token").is_ok() {
            return;
        }
        assert!(Instant::now() < deadline, "the consumer did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn counted(db: &Database) -> u64 {
    db.collection::<BsonDocument>("counts")
        .find_one(doc! { "_id": "changes" })
        .await
        .unwrap()
        .and_then(|d| d.get_i32("n").ok())
        .map_or(0, |n| n as u64)
}

/// Waits until `n` changes were counted.
async fn until_counted(db: &Database, n: u64) {
    let deadline = Instant::now() + STEP;
    while counted(db).await < n {
        assert!(
            Instant::now() < deadline,
            "{} of {n} counted",
            counted(db).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Each of the `n` orders `o00000`.. counted once and with one row.
async fn each_once(db: &Database, n: usize) {
    assert_eq!(counted(db).await, n as u64, "the counter");
    let rows = db.collection::<BsonDocument>("rows");
    assert_eq!(rows.count_documents(doc! {}).await.unwrap(), n as u64);
    let distinct = rows.distinct("order", doc! {}).await.unwrap();
    assert_eq!(distinct.len(), n, "one row per change");
    assert_eq!(position(db).await.get_i64("handled").ok(), Some(n as i64));
}

fn order(i: usize) -> BsonDocument {
    doc! { "_id": format!("o{i:05}"), "status": "new" }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consumer_killed_with_sigkill_applies_each_change_exactly_once() {
    let (_dir, server, client) = own_server("consumer-kill").await;
    let uri = server.uri();
    let db = client.database("consumer_kill");
    let mut draw = Draw::new(seed("CONSUMER_KILL_SEED"));
    const LEASE: u64 = 1000;

    let started_at = Instant::now();
    let (child, holder) = start_child(&uri, db.name(), LEASE);
    started(&db, &holder).await;
    let inserting = {
        let orders = db.collection::<BsonDocument>("consumed_orders");
        tokio::spawn(async move {
            for batch in (0..CHANGES).collect::<Vec<_>>().chunks(500) {
                orders
                    .insert_many(batch.iter().map(|&i| order(i)))
                    .await
                    .unwrap();
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let mut child = Some(child);
    let mut kills = 0;
    for _ in 0..KILLS {
        let before = counted(&db).await;
        if before + 1 >= CHANGES as u64 {
            break;
        }
        let running = child
            .take()
            .unwrap_or_else(|| start_child(&uri, db.name(), LEASE).0);
        // Killed while it handles: once it handled some, after a random
        // delay more.
        until_counted(&db, before + 1).await;
        tokio::time::sleep(Duration::from_millis(draw.next(700))).await;
        kill(running);
        kills += 1;
        println!("killed at {} counted", counted(&db).await);
    }
    inserting.await.unwrap();
    let (last, _) = start_child(&uri, db.name(), LEASE);
    until_counted(&db, CHANGES as u64).await;
    let took = started_at.elapsed();
    // Nothing more comes after it caught up.
    tokio::time::sleep(Duration::from_millis(500)).await;
    kill(last);
    each_once(&db, CHANGES).await;
    assert!(kills >= 3, "{kills} kills");
    println!(
        "{CHANGES} changes each applied once through {kills} kills in {:.1} s ({:.0} changes/s overall)",
        took.as_secs_f64(),
        CHANGES as f64 / took.as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lease_moves_to_the_waiting_instance_when_the_holder_is_killed() {
    let (_dir, server, client) = own_server("consumer-lease").await;
    let uri = server.uri();
    let db = client.database("consumer_lease");
    let mut draw = Draw::new(seed("CONSUMER_KILL_SEED"));
    const LEASE: u64 = 2000;
    let bound = lease(LEASE).takeover_bound();

    let (a, holder_a) = start_child(&uri, db.name(), LEASE);
    started(&db, &holder_a).await;
    let (b, holder_b) = start_child(&uri, db.name(), LEASE);

    // Changes arrive the whole time, one every 10 ms.
    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicU64::new(0));
    let writer = {
        let (orders, stop, written) = (
            db.collection::<BsonDocument>("consumed_orders"),
            stop.clone(),
            written.clone(),
        );
        tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                let i = written.load(Ordering::SeqCst) as usize;
                orders.insert_one(order(i)).await.unwrap();
                written.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    tokio::time::sleep(Duration::from_millis(500 + draw.next(1500))).await;
    assert_eq!(position(&db).await.get_str("holder").ok(), Some(&*holder_a));
    let killed = Instant::now();
    kill(a);
    let taken = loop {
        if position(&db).await.get_str("holder").ok() == Some(&*holder_b) {
            break killed.elapsed();
        }
        assert!(killed.elapsed() < STEP, "B never took the lease");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let at_takeover = written.load(Ordering::SeqCst);
    until_counted(&db, at_takeover).await;
    let caught_up = killed.elapsed();
    stop.store(true, Ordering::SeqCst);
    writer.await.unwrap();
    let n = written.load(Ordering::SeqCst);
    until_counted(&db, n).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    kill(b);
    each_once(&db, n as usize).await;
    let rows = db.collection::<BsonDocument>("rows");
    let by_b = rows
        .count_documents(doc! { "by": &holder_b })
        .await
        .unwrap();
    println!(
        "lease {LEASE} ms, poll 100 ms: taken over {:.2} s after the kill (bound {:.1} s, \
         + {TXN_LIFETIME_S} s when the kill lands in a transaction), caught up {:.2} s after it; \
         {n} changes, {by_b} by the second instance",
        taken.as_secs_f64(),
        bound.as_secs_f64(),
        caught_up.as_secs_f64()
    );
    assert!(by_b > 0);
    assert!(
        taken <= bound + Duration::from_secs(TXN_LIFETIME_S as u64 + 1),
        "takeover {taken:?}"
    );
}

/// Sends `signal` (`STOP`, `CONT`) to `child`.
fn signal(child: &Child, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success(), "kill -{signal}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_paused_past_its_lease_handles_nothing_once_it_wakes() {
    let (_dir, server, client) = own_server("consumer-pause").await;
    let uri = server.uri();
    let db = client.database("consumer_pause");
    const LEASE: u64 = 1000;
    let orders = db.collection::<BsonDocument>("consumed_orders");

    let (a, holder_a) = start_child(&uri, db.name(), LEASE);
    started(&db, &holder_a).await;
    let (b, holder_b) = start_child(&uri, db.name(), LEASE);
    let mut next = 0;
    let mut write = async |n: usize| {
        for _ in 0..n {
            orders.insert_one(order(next)).await.unwrap();
            next += 1;
        }
        next
    };
    until_counted(&db, write(50).await as u64).await;

    // A paused (SIGSTOP) past its lease, while changes keep coming: B
    // takes over and handles them.
    signal(&a, "STOP");
    let paused = Instant::now();
    write(50).await;
    let deadline = Instant::now() + STEP;
    while position(&db).await.get_str("holder").ok() != Some(&*holder_b) {
        assert!(Instant::now() < deadline, "B never took the lease");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let taken = paused.elapsed();
    let written = write(50).await;
    until_counted(&db, written as u64).await;

    // A wakes: its transaction (if it was in one) or its next one finds the
    // lease gone, and it handles nothing more.
    signal(&a, "CONT");
    let rows = db.collection::<BsonDocument>("rows");
    let by_a_before = rows
        .count_documents(doc! { "by": &holder_a })
        .await
        .unwrap();
    let written = write(50).await;
    until_counted(&db, written as u64).await;
    tokio::time::sleep(Duration::from_millis(2 * LEASE)).await;
    let by_a_after = rows
        .count_documents(doc! { "by": &holder_a })
        .await
        .unwrap();
    kill(a);
    kill(b);
    each_once(&db, written).await;
    assert_eq!(by_a_after, by_a_before, "A handled nothing after it woke");
    assert_eq!(position(&db).await.get_str("holder").ok(), Some(&*holder_b));
    println!(
        "A paused: B held the lease {:.2} s later; A handled {by_a_before} of {written}, none after it woke",
        taken.as_secs_f64()
    );
}
