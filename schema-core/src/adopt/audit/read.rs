//! One collection read and walked at the same time: the caller's task reads
//! the driver's batches while a thread of the audit's own walks the
//! documents read before, so that the walk of one batch and the server's
//! sending of the next overlap instead of following each other. The walk
//! sees the documents in the order read, as when it ran on the reading task
//! (where it runs when no thread can be started).

use bson::RawDocumentBuf;
use futures_util::TryStreamExt;
use mongodb::Database;
use tokio::sync::{mpsc, oneshot};

use super::options::AuditOptions;
use super::scan::Scan;
use crate::adopt::sample;
use crate::error::{Error, Result};

/// A read reports its progress every this many documents.
const PROGRESS_EVERY: u64 = 10_000;

/// Documents handed to the walk at a time, at most...
const BATCH: usize = 1_000;

/// ...and bytes (a batch ends with the document that reaches them).
const BATCH_BYTES: usize = 4 * 1024 * 1024;

/// Batches read ahead of the walk at most: what a slower walk holds back is
/// bounded (about 20 MiB and a document).
const AHEAD: usize = 4;

/// Reads collection `name` (a sample, or all of it) into `scan`, calling
/// `progress` with the documents read so far every [`PROGRESS_EVERY`].
pub(super) async fn collection(
    db: &Database,
    name: &str,
    options: &AuditOptions,
    scan: Scan,
    mut progress: impl FnMut(u64) + Send,
) -> Result<Scan> {
    let refused = |e| Error::from_server(e, "read", name);
    let mut cursor = sample::documents(db, name, options.sample, options.full_scan).await?;
    let (batches, mut received) = mpsc::channel::<Vec<RawDocumentBuf>>(AHEAD);
    let (start, started) = std::sync::mpsc::channel::<Scan>();
    let (finish, finished) = oneshot::channel::<Scan>();
    let spawned = std::thread::Builder::new()
        .name("schema-audit-walk".into())
        .spawn(move || {
            let Ok(mut scan) = started.recv() else {
                return;
            };
            while let Some(batch) = received.blocking_recv() {
                for raw in &batch {
                    scan.add(raw);
                }
            }
            let _ = finish.send(scan);
        });
    let walker = match spawned {
        Ok(walker) => walker,
        Err(_) => {
            // No thread: the walk on this task, each document where it lies.
            let mut scan = scan;
            while cursor.advance().await.map_err(refused)? {
                scan.add(cursor.current());
                if scan.read.is_multiple_of(PROGRESS_EVERY) {
                    progress(scan.read);
                }
            }
            return Ok(scan);
        }
    };
    // The thread waits for the scan; it cannot have ended.
    let _ = start.send(scan);
    let mut batch = Vec::with_capacity(BATCH);
    let (mut read, mut bytes) = (0u64, 0usize);
    while let Some(raw) = cursor.try_next().await.map_err(refused)? {
        bytes += raw.as_bytes().len();
        batch.push(raw);
        read += 1;
        if batch.len() == BATCH || bytes >= BATCH_BYTES {
            bytes = 0;
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            if batches.send(full).await.is_err() {
                break;
            }
        }
        if read.is_multiple_of(PROGRESS_EVERY) {
            progress(read);
        }
    }
    if !batch.is_empty() {
        let _ = batches.send(batch).await;
    }
    drop(batches);
    match finished.await {
        Ok(scan) => Ok(scan),
        // The walk panicked: so does the audit, as it did on this task.
        Err(_) => match walker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the walk ends by handing its scan back or by a panic"),
        },
    }
}
