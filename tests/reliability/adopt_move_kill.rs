//! The move of seed 000's stuck room (2,089 messages of 8,000 bytes, past
//! the point where a push can succeed) run in a child process killed with
//! SIGKILL at random points, several times, and resumed until done, while
//! a reader and a writer run the whole time.
//!
//! The move runs in a child process (this test binary again, running only
//! [`moving_child`]), which prints a line after each batch. The parent
//! kills it after a random number of batches and a random delay (so a kill
//! lands between batches or inside one), [`KILLS`] times, then runs a last
//! child to the end. Meanwhile a reader reads the room's messages from
//! wherever they are (`MoveReads::items` and `newest`) and checks on every
//! read that each message is there once, in order, with none older
//! missing; a writer adds new messages with a plain insert of the child
//! model. At the end every message is a child exactly once, in order, the
//! writer's too, and the room holds no array.
//!
//! The server is the test's own, with transactions that outlive their
//! client reaped after 5 s (`transactionLifetimeLimitSeconds`, 60 by
//! default): a killed child's open transaction holds its writes until then,
//! and the next child's batch waits for it (retried as a write conflict).
//! `MOVE_KILL_SEED` fixes the random points (otherwise drawn and printed).

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bson::{doc, oid::ObjectId, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::{MoveOptions, Schema};

use crate::draw::{seed, Draw};
use crate::models::moved::{Message, MESSAGES};
use crate::support;
use crate::support::own_server::{self, DataDir};

#[path = "../it/adopt/seeds.rs"]
mod seeds;

use seeds::{pad, STUCK_MESSAGES};

/// The environment variable that makes the test binary a moving child.
const CHILD: &str = "MOVE_KILL_CHILD_DB";
/// How many children are killed before the last one runs to the end.
const KILLS: u32 = 4;
/// Items per batch: 42 batches for the stuck room.
const BATCH: u32 = 50;

/// The moving child: runs only when the parent starts it.
#[tokio::test]
#[ignore = "the child process of the_stuck_room_moved_out_killed_with_sigkill_keeps_each_message_once"]
async fn moving_child() {
    let Ok(db_name) = std::env::var(CHILD) else {
        return;
    };
    let client = support::client().await;
    let options = MoveOptions {
        batch_size: BATCH,
        ..MoveOptions::default()
    };
    let done = MESSAGES
        .run(&client.database(&db_name), options, |p| {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "batch moved={} batches={}", p.moved, p.batches);
            let _ = out.flush();
        })
        .await
        .expect("the move");
    println!("done moved={} finished={}", done.moved, done.finished);
}

/// What a child printed: its batches and the items it reported moved.
#[derive(Debug, Default)]
struct Report {
    batches: u64,
    moved: u64,
    finished: bool,
}

/// Starts a child moving `db` on the server at `uri`; after `kill_after`
/// batches and a delay it is killed with SIGKILL, otherwise it runs to its
/// end.
fn run_child(uri: &str, db: &str, kill_after: Option<(u64, u64)>) -> Report {
    let mut child = support::child_test(module_path!(), "moving_child")
        .env(CHILD, db)
        .env("MONGODB_URI", uri)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the moving child");
    let lines = BufReader::new(child.stdout.take().expect("its stdout"));
    let mut report = Report::default();
    for line in lines.lines() {
        let line = line.expect("a line of the child");
        let number = |key: &str| -> u64 {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(key))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("`{key}` in {line:?}"))
        };
        if line.contains("batch moved=") {
            report.batches += 1;
            report.moved = number("moved=");
            if let Some((after, delay_ms)) = kill_after {
                if report.batches == after {
                    std::thread::sleep(Duration::from_millis(delay_ms));
                    child.kill().expect("SIGKILL the child");
                }
            }
        } else if line.contains("done moved=") {
            report.moved = number("moved=");
            report.finished = true;
        }
    }
    let status = child.wait().expect("the child's exit");
    if kill_after.is_some() {
        assert!(!report.finished, "the child finished before its kill");
    } else {
        assert!(status.success() && report.finished, "{status}: {report:?}");
    }
    report
}

/// Checks one read of the room, oldest first: `0, 1, 2, ...` with no
/// message twice or missing, at least the stuck room's and the writer's
/// acknowledged before the read began.
fn check_all(ns: &[i32], acked: i32) {
    let len = ns.len() as i32;
    assert!(
        len >= STUCK_MESSAGES + acked,
        "{len} messages read, {acked} written"
    );
    if let Some(at) = ns.iter().enumerate().position(|(i, n)| *n != i as i32) {
        panic!(
            "message {at} read as {}: {:?}",
            ns[at],
            &ns[at.saturating_sub(3)..(at + 3).min(ns.len())]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stuck_room_moved_out_killed_with_sigkill_keeps_each_message_once() {
    let dir = DataDir::new("adopt-move-kill");
    let server = own_server::start(&dir, None);
    let uri = server.uri();
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    client
        .database("admin")
        .run_command(doc! { "setParameter": 1, "transactionLifetimeLimitSeconds": 5 })
        .await
        .unwrap();
    let db = client.database("adopt_move_kill");
    seeds::stuck_room(&db, 0).await;
    Schema::new().with::<Message>().sync(&db).await.unwrap();

    let seed = seed("MOVE_KILL_SEED");
    let mut draw = Draw::new(seed);

    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(AtomicI32::new(0));
    let reads = Arc::new(AtomicU64::new(0));
    let reader = {
        let (db, stop, acked, reads) = (db.clone(), stop.clone(), acked.clone(), reads.clone());
        tokio::spawn(async move {
            let room = MESSAGES.reads(&db);
            let id = "room1".to_owned();
            while !stop.load(Ordering::Relaxed) {
                let before = acked.load(Ordering::SeqCst);
                let all = room.items(&id).await.expect("a read of every message");
                let ns: Vec<i32> = all.iter().map(|m| m.n).collect();
                check_all(&ns, before);
                assert!(all.iter().all(|m| m.n >= STUCK_MESSAGES || m.text == pad()));
                let before = acked.load(Ordering::SeqCst);
                let newest = room.newest(&id, 20).await.expect("a read of the newest");
                let top = newest[0].n;
                assert!(
                    top >= STUCK_MESSAGES - 1 + before,
                    "newest {top}, {before} written"
                );
                let ns: Vec<i32> = newest.iter().map(|m| m.n).collect();
                assert_eq!(ns, (top - 19..=top).rev().collect::<Vec<_>>());
                reads.fetch_add(2, Ordering::Relaxed);
            }
        })
    };
    let writer = {
        let (db, stop, acked) = (db.clone(), stop.clone(), acked.clone());
        tokio::spawn(async move {
            let messages = Repo::<Message>::new(&db);
            while !stop.load(Ordering::Relaxed) {
                let n = STUCK_MESSAGES + acked.load(Ordering::SeqCst);
                let m = Message {
                    id: ObjectId::new(),
                    room: "room1".into(),
                    n,
                    text: format!("new {n}"),
                };
                messages.insert(&m).await.expect("a new message");
                acked.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };

    let started = Instant::now();
    let mut reported = 0;
    for kill in 0..KILLS {
        let (after, delay_ms) = (1 + draw.next(6), draw.next(150));
        let (uri, name) = (uri.clone(), db.name().to_owned());
        let killed =
            tokio::task::spawn_blocking(move || run_child(&uri, &name, Some((after, delay_ms))))
                .await
                .unwrap();
        println!(
            "kill {}: after {after} batches and {delay_ms} ms; {} reported moved",
            kill + 1,
            killed.moved
        );
        reported += killed.moved;
    }
    let (uri2, name) = (uri.clone(), db.name().to_owned());
    let last = tokio::task::spawn_blocking(move || run_child(&uri2, &name, None))
        .await
        .unwrap();
    reported += last.moved;
    let took = started.elapsed();
    // The reader and the writer a little longer, after the move.
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, Ordering::Relaxed);
    reader.await.unwrap();
    writer.await.unwrap();

    // Every message a child exactly once, in order, the writer's too; the
    // room without its array.
    let written = acked.load(Ordering::SeqCst);
    let all = MESSAGES
        .reads(&db)
        .items(&"room1".to_owned())
        .await
        .unwrap();
    let ns: Vec<i32> = all.iter().map(|m| m.n).collect();
    assert_eq!(ns, (0..STUCK_MESSAGES + written).collect::<Vec<_>>());
    let children = db.collection::<BsonDocument>("roomMessages");
    assert_eq!(
        children
            .count_documents(doc! { "room": "room1" })
            .await
            .unwrap(),
        (STUCK_MESSAGES + written) as u64
    );
    let room = db
        .collection::<BsonDocument>("rooms")
        .find_one(doc! { "_id": "room1" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(room, doc! { "_id": "room1" });
    // The runs reported every item but those of the batches in flight at
    // the kills (committed, or not, unreported).
    assert!(reported <= STUCK_MESSAGES as u64, "{reported} reported");
    assert!(
        reported + u64::from(KILLS * BATCH) >= STUCK_MESSAGES as u64,
        "{reported} reported"
    );
    println!(
        "{} messages moved ({reported} reported), {written} written and {} reads meanwhile, {:.1} s",
        STUCK_MESSAGES,
        reads.load(Ordering::Relaxed),
        took.as_secs_f64()
    );
    assert!(reads.load(Ordering::Relaxed) > 0 && written > 0);
}
