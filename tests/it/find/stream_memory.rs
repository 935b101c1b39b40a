//! Streaming 200,000 documents through `Repo::find`, with its default
//! batches, keeps memory flat: the
//! process's peak resident memory (`VmHWM`) grows by about one batch while
//! the stream is read, and by the whole result when the same query is
//! collected into a `Vec`. Both figures are printed.
//!
//! The peak is the whole process's: the measurement runs in a process of its
//! own (this binary again, running [`measured_alone`] and nothing else), where
//! no other test allocates meanwhile nor raised the peak before.

use crate::support;

use bson::doc;
use futures_util::TryStreamExt;
use schema_core::prelude::*;
use schema_core::Schema;
use serde::{Deserialize, Serialize};

const DOCS: u32 = 200_000;

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "readings")]
struct Reading {
    #[serde(rename = "_id")]
    id: i64,
    sensor: String,
    payload: String,
}

/// The environment variable that makes [`measured_alone`] measure.
const CHILD: &str = "FIND_STREAM_MEMORY_CHILD";

#[test]
fn streaming_200k_documents_keeps_the_peak_memory_flat() {
    support::ran_alone(
        support::child_test(module_path!(), "measured_alone")
            .env(CHILD, "1")
            .env("MONGODB_URI", support::uri()),
    );
}

/// The measurement, in the process [`streaming_200k_documents_keeps_the_peak_memory_flat`]
/// starts for it.
#[tokio::test]
#[ignore = "run by streaming_200k_documents_keeps_the_peak_memory_flat in a process of its own"]
async fn measured_alone() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let client = support::client().await;
    let db = support::fresh_db(&client, "find_stream_memory").await;
    Schema::new().with::<Reading>().sync(&db).await.unwrap();
    let readings = Repo::<Reading>::new(&db);
    for start in (0..DOCS).step_by(5_000) {
        let batch: Vec<Reading> = (start..start + 5_000)
            .map(|i| Reading {
                id: i64::from(i),
                sensor: format!("s{}", i % 100),
                payload: "p".repeat(256),
            })
            .collect();
        readings.insert_many(&batch).await.unwrap();
    }

    // By `_id`, served by the `_id` index (no scan), with the default
    // batches (`DEFAULT_BATCH_SIZE`, 1,000 documents): without that default
    // the server fills each batch up to 16 MiB and a stream holds that much.
    assert_eq!(schema_core::DEFAULT_BATCH_SIZE, 1_000);
    let all = || readings.find(doc! {}).sort(doc! { "_id": 1 });

    // The code a stream runs is read in first, by a stream of small batches:
    // the peak counts the pages of the binary the process has touched too
    // (`RssFile`), and this binary holds the code of every integration test,
    // so a stream's first run grows it by megabytes of code.
    let mut warm = readings
        .find(doc! { "_id": { "$lt": 50 } })
        .sort(doc! { "_id": 1 })
        .batch_size(10)
        .await
        .unwrap();
    while warm.try_next().await.unwrap().is_some() {}
    drop(warm);

    let before = support::peak_kib();
    let mut stream = all().await.unwrap();
    let (mut n, mut bytes, mut next_id) = (0u64, 0usize, 0i64);
    while let Some(r) = stream.try_next().await.unwrap() {
        assert_eq!(r.id, next_id, "in `_id` order, none skipped");
        next_id += 1;
        n += 1;
        bytes += r.payload.len();
    }
    drop(stream);
    let streamed = support::peak_kib().saturating_sub(before);
    assert_eq!(n, u64::from(DOCS));
    assert_eq!(bytes, DOCS as usize * 256);

    let before = support::peak_kib();
    let collected = all().all().await.unwrap();
    let in_vec = support::peak_kib().saturating_sub(before);
    assert_eq!(collected.len(), DOCS as usize);
    drop(collected);

    println!(
        "peak memory growth reading {DOCS} documents of ~300 bytes: streamed {} KiB, \
         collected into a Vec {} KiB",
        streamed, in_vec
    );
    // The result alone is over 50 MiB: a stream holds about one batch.
    assert!(in_vec > 50 * 1024, "the Vec holds the result: {in_vec} KiB");
    // One batch of 1,000 such documents is about 300 KiB; a server-sized
    // batch (16 MiB) would break this.
    assert!(
        streamed < 4 * 1024,
        "a stream holds about one batch: {streamed} KiB"
    );
}
