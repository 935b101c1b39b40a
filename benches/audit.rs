//! The audit against a plain read of the same documents, on 1,000,000
//! documents: `audit` with the default sample (1,000 per collection) against
//! a raw `$sample` of the same size per collection, and the full scan
//! against a raw `find` of everything, in interleaved rounds (the side that
//! goes first alternates). Prints each side's median time and the median of
//! the per-round ratios audit/raw with their p10-p90 spread; then the peak
//! resident memory (`VmHWM`) each side's full read adds, each measured in a
//! process of its own (this binary run again) so that neither raises the
//! other's peak.
//!
//! The database: `events` (1,000,000 documents of about 330 bytes: an
//! ObjectId `_id` a second apart, a `user_id` referencing `users`, a `kind`
//! deciding the keys of `details`, 0 to 4 `tags`, 1 to 3 `items`
//! sub-documents, a date; and 10 documents of about 1 MB holding a
//! `history` of 1,000 strings) and `users` (1,000 documents).
//!
//! Run: `cargo bench --bench audit` (`ROUNDS=N` sample rounds, default 10;
//! `FULL_ROUNDS=N` full-scan rounds, default 3, 0 to skip; `DOCS=N`,
//! default 1000000).

use std::time::{Duration, Instant};

use bson::{doc, oid::ObjectId, DateTime, Document, RawDocumentBuf};
use futures_util::TryStreamExt;
use mongodb::Database;
use schema_core::{audit, AuditOptions};
use schema_testkit::stats::{median, Spread};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The env variable that makes this binary measure one side's memory.
const MEMORY: &str = "AUDIT_BENCH_MEMORY";

const DB: &str = "bench_audit";

async fn build(db: &Database, docs: usize) {
    db.drop().await.expect("drop");
    let users: Vec<ObjectId> = (0..1000u32)
        .map(|i| ObjectId::from_parts(1_600_000_000 + i, [9; 5], [0, 0, 1]))
        .collect();
    db.collection::<Document>("users")
        .insert_many(
            users
                .iter()
                .enumerate()
                .map(|(i, id)| doc! { "_id": id, "name": format!("user {i}") }),
        )
        .await
        .expect("users");
    let events = db.collection::<Document>("events");
    let start = Instant::now();
    let chunk = 10_000;
    for first in (0..docs).step_by(chunk) {
        let batch: Vec<Document> = (first..(first + chunk).min(docs))
            .map(|i| event(i, &users))
            .collect();
        events
            .insert_many(batch)
            .ordered(false)
            .await
            .expect("events");
    }
    eprintln!(
        "built {docs} events in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

fn event(i: usize, users: &[ObjectId]) -> Document {
    let c = (i as u32).to_be_bytes();
    let id = ObjectId::from_parts(1_700_000_000 + i as u32, [1; 5], [c[1], c[2], c[3]]);
    let (kind, details) = match i % 3 {
        0 => (
            "click",
            doc! { "x": (i % 800) as i32, "y": (i % 600) as i32 },
        ),
        1 => (
            "view",
            doc! { "page": format!("/p/{}", i % 50), "ms": (i % 9000) as i32 },
        ),
        _ => (
            "buy",
            doc! { "sku": format!("s{}", i % 400), "qty": 1 + (i % 3) as i32, "price": 9.5 },
        ),
    };
    let mut d = doc! {
        "_id": id,
        "user_id": users[i % users.len()],
        "kind": kind,
        "details": details,
        "tags": (0..i % 5).map(|t| format!("t{t}")).collect::<Vec<_>>(),
        "items": (0..1 + i % 3).map(|k| doc! { "sku": format!("s{}", (i + k) % 400), "qty": 1 }).collect::<Vec<_>>(),
        "at": DateTime::from_millis(1_700_000_000_000 + i as i64 * 1000),
        "note": "an event written by an application that knew no bounds",
    };
    if i % (100_000) == 7 {
        d.insert(
            "history",
            (0..1000)
                .map(|h| format!("{h:04}{}", "h".repeat(1000)))
                .collect::<Vec<_>>(),
        );
    }
    d
}

/// The raw side: every collection read as the audit reads it, with the
/// driver alone (`$sample` of `sample`, or a plain `find`), each document
/// touched (its length summed).
async fn raw_read(db: &Database, sample: Option<u32>) -> usize {
    let mut bytes = 0;
    for name in ["events", "users"] {
        let coll = db.collection::<RawDocumentBuf>(name);
        let mut cursor = match sample {
            Some(n) => coll
                .aggregate([doc! { "$sample": { "size": i64::from(n) } }])
                .with_type::<RawDocumentBuf>()
                .await
                .expect("sample"),
            None => coll.find(doc! {}).await.expect("find"),
        };
        while let Some(raw) = cursor.try_next().await.expect("read") {
            bytes += raw.as_bytes().len();
        }
    }
    bytes
}

/// The process's peak resident set size so far, in KiB.
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .expect("/proc/self/status")
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// In the child: one side's full read, printing the peak's growth.
async fn measure_memory(side: &str) {
    let client = schema_testkit::server::connect().await.expect("server");
    let db = client.database(DB);
    // The connection made and a first command answered before the baseline.
    db.list_collection_names().await.expect("list");
    let before = peak_kib();
    match side {
        "audit" => {
            let options = AuditOptions {
                full_scan: true,
                ..AuditOptions::default()
            };
            let report = audit(&db, &options).await.expect("audit");
            assert_eq!(report.collections.len(), 2);
        }
        _ => {
            raw_read(&db, None).await;
        }
    }
    println!("peak growth KiB: {}", peak_kib() - before);
}

fn memory_of(side: &str, uri: &str) -> u64 {
    let out = std::process::Command::new(std::env::current_exe().expect("exe"))
        .env(MEMORY, side)
        .env("MONGODB_URI", uri)
        .output()
        .expect("run the memory measurement");
    let printed = String::from_utf8_lossy(&out.stdout);
    printed
        .lines()
        .find_map(|l| l.strip_prefix("peak growth KiB: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("{printed}{}", String::from_utf8_lossy(&out.stderr)))
}

fn row(name: &str, audit: &[Duration], raw: &[Duration]) {
    println!(
        "{name}: audit median {:.3} s, raw median {:.3} s, ratio audit/raw {}",
        median(audit).as_secs_f64(),
        median(raw).as_secs_f64(),
        Spread::of_ratios(audit, raw)
    );
}

#[tokio::main]
async fn main() {
    if let Ok(side) = std::env::var(MEMORY) {
        measure_memory(&side).await;
        return;
    }
    let rounds = env("ROUNDS", 10).max(1);
    let full_rounds = env("FULL_ROUNDS", 3);
    let docs = env("DOCS", 1_000_000).max(1);
    let uri =
        schema_testkit::server::uri().expect("a server: set MONGODB_URI or install secantusd-rs");
    let client = mongodb::Client::with_uri_str(&uri).await.expect("client");
    let db = client.database(DB);
    build(&db, docs).await;
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("{docs} events, load average at start: {}", load.trim());

    let sample = AuditOptions::default();
    let full = AuditOptions {
        full_scan: true,
        ..AuditOptions::default()
    };
    for (name, options, raw, count) in [
        (
            "sample of 1,000 per collection",
            &sample,
            Some(sample.sample),
            rounds,
        ),
        ("full scan", &full, None, full_rounds),
    ] {
        let (mut a, mut r) = (Vec::new(), Vec::new());
        for round in 0..count {
            for side in [round % 2, 1 - round % 2] {
                let started = Instant::now();
                if side == 0 {
                    let report = audit(&db, options).await.expect("audit");
                    std::hint::black_box(report);
                    a.push(started.elapsed());
                } else {
                    std::hint::black_box(raw_read(&db, raw).await);
                    r.push(started.elapsed());
                }
            }
        }
        if count > 0 {
            row(name, &a, &r);
        }
    }
    let report = audit(&db, &sample).await.expect("audit");
    println!("findings of the default audit: {}", report.findings().len());
    for finding in report.findings() {
        println!("  {}", finding.chars().take(160).collect::<String>());
    }
    let audit_kib = memory_of("audit", &uri);
    let raw_kib = memory_of("raw", &uri);
    println!(
        "peak resident memory added by a full read: audit {audit_kib} KiB, raw find {raw_kib} KiB"
    );
}
