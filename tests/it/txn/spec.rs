//! The drivers' convenient-transactions specification
//! (mongodb/specifications, `source/transactions-convenient-api`), replayed
//! through [`schema_core::transaction`] against the test server: one test
//! per scenario of its unified tests, in one module per scenario file, named
//! after the scenario's description, then its prose tests.
//!
//! Each scenario runs on a client of its own, whose `appName` scopes the
//! failpoints it arms, and takes the failpoint lock for its whole run, so the
//! scenarios run one at a time. Its expected command events are the
//! scenario's own, written in the unified format and matched by its rules
//! ([`schema_testkit::unified`]); its outcome is read back with another
//! client. Where a scenario checks the text of an error (`errorContains:
//! E11000`), the replay checks the code the text stands for: this crate's
//! errors never carry the server's message (see the book's chapter on errors).

use crate::support;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use bson::{doc, Bson, Document};
use mongodb::options::{
    Acknowledgment, ClientOptions, ReadConcern, SessionOptions, TransactionOptions, WriteConcern,
};
use mongodb::{Client, ClientSession, Collection};
use schema_core::label::{TRANSIENT_TRANSACTION_ERROR, UNKNOWN_TRANSACTION_COMMIT_RESULT};
use schema_core::Error;
use schema_core::{transaction, Jitter, RetryPolicy};
use schema_testkit::{unified, CommandLog, Sent};
use support::failpoint;

const COLLECTION: &str = "test";

/// One scenario's entities: `client0` (its commands recorded whole),
/// `database0` (a fresh database of its own), `collection0` (`test`, empty),
/// and the `appName` its failpoints are scoped to.
struct Scenario {
    client: Client,
    log: CommandLog,
    coll: Collection<Document>,
    database: String,
    app: String,
    _turn: tokio::sync::MutexGuard<'static, ()>,
}

static NEXT: AtomicU32 = AtomicU32::new(0);

impl Scenario {
    /// The entities of `name`'s scenario file, with `uri_options` added to
    /// the client's URI (`readConcernLevel=local&w=1`, ...).
    async fn new(name: &str, uri_options: &str) -> Scenario {
        let turn = failpoint::FAILPOINT.lock().await;
        let app = format!("spec-{name}-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let mut uri = support::uri();
        if !uri_options.is_empty() {
            uri.push(if uri.contains('?') { '&' } else { '?' });
            uri.push_str(uri_options);
        }
        let mut options = ClientOptions::parse(uri).await.unwrap();
        options.app_name = Some(app.clone());
        let log = CommandLog::keeping_commands();
        log.record(&mut options);
        let client = Client::with_options(options).unwrap();
        // initialData: the collection, empty, made by another client.
        let setup = support::client().await;
        let db = support::fresh_db(&setup, &name.replace(['-', '.'], "_")).await;
        db.create_collection(COLLECTION).await.unwrap();
        let database = db.name().to_owned();
        let coll = client.database(&database).collection(COLLECTION);
        log.clear();
        Scenario {
            client,
            log,
            coll,
            database,
            app,
            _turn: turn,
        }
    }

    /// `session0`.
    async fn session(&self) -> ClientSession {
        self.client.start_session().await.unwrap()
    }

    /// The `failPoint` operation: `failCommand` for this scenario's client.
    async fn fail(&self, times: i32, data: Document) {
        failpoint::arm(
            &support::client().await,
            &self.app,
            doc! { "times": times },
            data,
        )
        .await;
    }

    /// The scenario's `withTransaction` on a new `session0` with `options`,
    /// then its `expectEvents` and its `outcome` (the ids the collection
    /// holds); returns what `withTransaction` returned.
    async fn replay<T>(
        &self,
        options: Option<TransactionOptions>,
        body: impl AsyncFnMut(&mut ClientSession) -> schema_core::Result<T>,
        events: &[Event],
        outcome: &[i32],
    ) -> schema_core::Result<T> {
        let mut s = self.session().await;
        self.replay_on(&mut s, options, body, events, outcome).await
    }

    /// [`replay`](Self::replay) on the session `s`.
    async fn replay_on<T>(
        &self,
        s: &mut ClientSession,
        options: Option<TransactionOptions>,
        body: impl AsyncFnMut(&mut ClientSession) -> schema_core::Result<T>,
        events: &[Event],
        outcome: &[i32],
    ) -> schema_core::Result<T> {
        let mut run = transaction(&self.client).session(s);
        if let Some(options) = options {
            run = run.options(options);
        }
        let returned = run.run(body).await;
        self.expect_events(s, events);
        self.expect_outcome(outcome).await;
        returned
    }

    /// `expectEvents`: the commands sent since the scenario began, matched
    /// in order against `expected`, each `(commandName, databaseName,
    /// command)`; `session` is `$$sessionLsid`'s `session0`.
    fn expect_events(&self, session: &ClientSession, expected: &[Event]) {
        let sent: Vec<Sent> = self.log.take_sent();
        let lsid = session.id().clone();
        let names: Vec<&str> = sent.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            sent.len(),
            expected.len(),
            "expected {} commands, sent {names:?}",
            expected.len()
        );
        for (i, (sent, (name, database, command))) in sent.iter().zip(expected).enumerate() {
            assert_eq!(sent.name, *name, "event {i}: {names:?}");
            let database = if *database == "admin" {
                "admin"
            } else {
                &self.database
            };
            assert_eq!(sent.database, database, "event {i} ({name})");
            let session_lsid = |n: &str| (n == "session0").then(|| lsid.clone());
            if let Err(mismatch) = unified::matches_root(command, &sent.command, &session_lsid) {
                panic!("event {i} ({name}): {mismatch}\nsent: {}", sent.command);
            }
        }
    }

    /// `outcome`: the collection holds exactly `ids`, read by another client.
    async fn expect_outcome(&self, ids: &[i32]) {
        let other = support::client().await;
        let coll = other
            .database(&self.database)
            .collection::<Document>(COLLECTION);
        let mut held = Vec::new();
        let mut cursor = coll.find(doc! {}).sort(doc! { "_id": 1 }).await.unwrap();
        while cursor.advance().await.unwrap() {
            held.push(cursor.deserialize_current().unwrap());
        }
        let want: Vec<Document> = ids.iter().map(|id| doc! { "_id": *id }).collect();
        assert_eq!(held, want, "the collection's documents");
    }
}

/// One expected command event: `(commandName, databaseName, command)`.
type Event = (&'static str, &'static str, Document);

// The expected events, in the scenarios' own terms. `DB` stands for the
// scenario's database (`*databaseName`).
const DB: &str = "withTransaction-tests";

/// An `insert` of `{_id: id}` in transaction `txn`: the first command of
/// the transaction carries `startTransaction` (and, after an earlier
/// transaction on the session, a causal `readConcern`).
fn insert(id: i32, txn: i64, first: bool, causal: bool) -> Event {
    let mut command = doc! {
        "insert": COLLECTION, "documents": [{ "_id": id }], "ordered": true,
        "lsid": { "$$sessionLsid": "session0" }, "txnNumber": txn, "autocommit": false,
        "writeConcern": { "$$exists": false },
    };
    command.insert(
        "startTransaction",
        if first {
            Bson::Boolean(true)
        } else {
            Bson::Document(doc! { "$$exists": false })
        },
    );
    command.insert("readConcern", read_concern(causal));
    ("insert", DB, command)
}

/// An `insert` in transaction `txn` with the read concern `read_concern`.
fn insert_reading(id: i32, txn: i64, read_concern: Document) -> Event {
    let (name, db, mut command) = insert(id, txn, true, false);
    command.insert("readConcern", read_concern);
    (name, db, command)
}

/// An `insert` outside any transaction, after one on the same session.
fn insert_outside(id: i32) -> Event {
    (
        "insert",
        DB,
        doc! {
            "insert": COLLECTION, "documents": [{ "_id": id }], "ordered": true,
            "lsid": { "$$sessionLsid": "session0" },
            "readConcern": { "afterClusterTime": { "$$exists": true } },
            "autocommit": { "$$exists": false }, "startTransaction": { "$$exists": false },
            "writeConcern": { "$$exists": false },
        },
    )
}

fn read_concern(causal: bool) -> Bson {
    if causal {
        Bson::Document(doc! { "afterClusterTime": { "$$exists": true } })
    } else {
        Bson::Document(doc! { "$$exists": false })
    }
}

/// A `commitTransaction` or `abortTransaction` (`end`) of transaction `txn`,
/// with `write_concern` (absent when `None`) and `extra` fields.
fn end(end: &'static str, txn: i64, write_concern: Option<Document>, extra: Document) -> Event {
    let mut command = doc! {
        end: 1, "lsid": { "$$sessionLsid": "session0" }, "txnNumber": txn, "autocommit": false,
        "readConcern": { "$$exists": false }, "startTransaction": { "$$exists": false },
    };
    command.insert(
        "writeConcern",
        write_concern.unwrap_or(doc! { "$$exists": false }),
    );
    command.extend(extra);
    (end, "admin", command)
}

fn commit(txn: i64, write_concern: Option<Document>) -> Event {
    end("commitTransaction", txn, write_concern, doc! {})
}

fn abort(txn: i64) -> Event {
    end("abortTransaction", txn, None, doc! {})
}

/// The write concern the driver sends on a commit retry (SPEC-1185).
fn majority_retry() -> Option<Document> {
    Some(doc! { "w": "majority", "wtimeout": 10000 })
}

/// `insertOne` of `{_id: id}` in the session: the scenarios' callback step.
async fn insert_one(
    coll: &Collection<Document>,
    s: &mut ClientSession,
    id: i32,
) -> schema_core::Result<()> {
    coll.insert_one(doc! { "_id": id }).session(s).await?;
    Ok(())
}

/// The callback most scenarios run: `insertOne({_id: 1})`.
fn insert_first(
    t: &Scenario,
) -> impl AsyncFnMut(&mut ClientSession) -> schema_core::Result<()> + '_ {
    async |s: &mut ClientSession| insert_one(&t.coll, s, 1).await
}

/// The scenarios' error expectations on labels.
fn assert_labels(err: &Error, contain: &[&str], omit: &[&str]) {
    for label in contain {
        assert!(err.has_label(label), "{err:?} lacks {label}");
    }
    for label in omit {
        assert!(!err.has_label(label), "{err:?} has {label}");
    }
}

const BOTH_LABELS: [&str; 2] = [
    TRANSIENT_TRANSACTION_ERROR,
    UNKNOWN_TRANSACTION_COMMIT_RESULT,
];

/// `callback-aborts.yml`
mod callback_aborts {
    use super::*;

    #[tokio::test]
    async fn with_transaction_succeeds_if_callback_aborts() {
        let t = Scenario::new("callback-aborts", "").await;
        let body = async |s: &mut ClientSession| {
            insert_one(&t.coll, s, 1).await?;
            Ok(s.abort_transaction().await?)
        };
        let events = [insert(1, 1, true, false), abort(1)];
        t.replay(None, body, &events, &[]).await.unwrap();
    }

    #[tokio::test]
    async fn with_transaction_succeeds_if_callback_aborts_with_no_ops() {
        let t = Scenario::new("callback-aborts", "").await;
        let body = async |s: &mut ClientSession| Ok(s.abort_transaction().await?);
        t.replay(None, body, &[], &[]).await.unwrap();
    }

    #[tokio::test]
    async fn with_transaction_still_succeeds_if_callback_aborts_and_runs_extra_op() {
        let t = Scenario::new("callback-aborts", "").await;
        let body = async |s: &mut ClientSession| {
            insert_one(&t.coll, s, 1).await?;
            s.abort_transaction().await?;
            insert_one(&t.coll, s, 2).await
        };
        let events = [insert(1, 1, true, false), abort(1), insert_outside(2)];
        t.replay(None, body, &events, &[2]).await.unwrap();
    }
}

/// `callback-commits.yml`
mod callback_commits {
    use super::*;

    #[tokio::test]
    async fn with_transaction_succeeds_if_callback_commits() {
        let t = Scenario::new("callback-commits", "").await;
        let body = async |s: &mut ClientSession| {
            insert_one(&t.coll, s, 1).await?;
            insert_one(&t.coll, s, 2).await?;
            Ok(s.commit_transaction().await?)
        };
        let events = two_inserts_committed();
        t.replay(None, body, &events, &[1, 2]).await.unwrap();
    }

    #[tokio::test]
    async fn with_transaction_still_succeeds_if_callback_commits_and_runs_extra_op() {
        let t = Scenario::new("callback-commits", "").await;
        let body = async |s: &mut ClientSession| {
            insert_one(&t.coll, s, 1).await?;
            insert_one(&t.coll, s, 2).await?;
            s.commit_transaction().await?;
            insert_one(&t.coll, s, 3).await
        };
        let events = [
            insert(1, 1, true, false),
            insert(2, 1, false, false),
            commit(1, None),
            insert_outside(3),
        ];
        t.replay(None, body, &events, &[1, 2, 3]).await.unwrap();
    }
}

/// `callback-retry.yml`
mod callback_retry {
    use super::*;

    #[tokio::test]
    async fn callback_succeeds_after_multiple_connection_errors() {
        let t = Scenario::new("callback-retry", "").await;
        t.fail(
            2,
            doc! { "failCommands": ["insert"], "closeConnection": true },
        )
        .await;
        // ignoreResultAndError: the insert's error still ends the attempt, as
        // the scenario's runner reports it to withTransaction.
        let body = async |s: &mut ClientSession| insert_one(&t.coll, s, 1).await;
        let events = [
            insert(1, 1, true, false),
            abort(1),
            insert(1, 2, true, true),
            abort(2),
            insert(1, 3, true, true),
            commit(3, None),
        ];
        t.replay(None, body, &events, &[1]).await.unwrap();
    }

    #[tokio::test]
    async fn callback_is_not_retried_after_non_transient_error_duplicate_key_error() {
        let t = Scenario::new("callback-retry", "").await;
        let body = async |s: &mut ClientSession| {
            insert_one(&t.coll, s, 1).await?;
            let err = insert_one(&t.coll, s, 1).await.unwrap_err();
            assert_labels(&err, &[], &BOTH_LABELS);
            Err::<(), _>(err)
        };
        let events = [
            insert(1, 1, true, false),
            insert(1, 1, false, false),
            abort(1),
        ];
        let err = t.replay(None, body, &events, &[]).await.unwrap_err();
        assert_labels(&err, &[], &BOTH_LABELS);
        assert_eq!(err.code(), Some(11000), "{err:?}");
    }
}

/// `commit.yml`
mod commit {
    use super::*;

    #[tokio::test]
    async fn with_transaction_commits_after_callback_returns() {
        let t = Scenario::new("commit", "").await;
        let body = async |s: &mut ClientSession| {
            insert_one(&t.coll, s, 1).await?;
            insert_one(&t.coll, s, 2).await
        };
        let events = two_inserts_committed();
        t.replay(None, body, &events, &[1, 2]).await.unwrap();
    }

    #[tokio::test]
    async fn with_transaction_commits_after_callback_returns_second_transaction() {
        let t = Scenario::new("commit", "").await;
        let body = async |s: &mut ClientSession| {
            insert_one(&t.coll, s, 1).await?;
            s.commit_transaction().await?;
            s.start_transaction().await?;
            insert_one(&t.coll, s, 2).await
        };
        let events = [
            insert(1, 1, true, false),
            commit(1, None),
            insert(2, 2, true, true),
            commit(2, None),
        ];
        t.replay(None, body, &events, &[1, 2]).await.unwrap();
    }
}

/// The events of `insertOne` of `_id` 1 and 2 in one transaction, committed.
fn two_inserts_committed() -> [Event; 3] {
    [
        insert(1, 1, true, false),
        insert(2, 1, false, false),
        commit(1, None),
    ]
}

/// The events of a transaction whose commit is sent three times: the
/// driver's own retry, then the runner's, both with `w: "majority"`.
fn commit_sent_three_times(first: Option<Document>, retried: Option<Document>) -> Vec<Event> {
    vec![
        insert(1, 1, true, false),
        commit(1, first),
        commit(1, retried.clone()),
        commit(1, retried),
    ]
}

/// `commit-retry.yml`
mod commit_retry {
    use super::*;

    #[tokio::test]
    async fn commit_transaction_succeeds_after_multiple_connection_errors() {
        let t = Scenario::new("commit-retry", "").await;
        t.fail(
            2,
            doc! { "failCommands": ["commitTransaction"], "closeConnection": true },
        )
        .await;
        let events = commit_sent_three_times(None, majority_retry());
        t.replay(None, insert_first(&t), &events, &[1])
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn commit_transaction_retry_only_overwrites_write_concern_w_option() {
        let t = Scenario::new("commit-retry", "").await;
        t.fail(
            2,
            doc! { "failCommands": ["commitTransaction"], "closeConnection": true },
        )
        .await;
        let w2 = WriteConcern::builder()
            .w(Acknowledgment::Nodes(2))
            .journal(true)
            .w_timeout(Duration::from_millis(5000))
            .build();
        let options = TransactionOptions::builder().write_concern(w2).build();
        let events = commit_sent_three_times(
            Some(doc! { "w": 2, "j": true, "wtimeout": 5000 }),
            Some(doc! { "w": "majority", "j": true, "wtimeout": 5000 }),
        );
        t.replay(Some(options), insert_first(&t), &events, &[1])
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn commit_is_not_retried_after_max_time_ms_expired_error() {
        let t = Scenario::new("commit-retry", "").await;
        t.fail(
            1,
            doc! { "failCommands": ["commitTransaction"], "errorCode": 50 },
        )
        .await;
        let options = TransactionOptions::builder()
            .max_commit_time(Duration::from_millis(60000))
            .build();
        let events = [
            insert(1, 1, true, false),
            end("commitTransaction", 1, None, doc! { "maxTimeMS": 60000 }),
        ];
        let err = t
            .replay(Some(options), insert_first(&t), &events, &[])
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some(50), "MaxTimeMSExpired: {err:?}");
        assert_labels(
            &err,
            &[UNKNOWN_TRANSACTION_COMMIT_RESULT],
            &[TRANSIENT_TRANSACTION_ERROR],
        );
    }
}

/// `commit-retry-errorLabels.yml`
mod commit_retry_error_labels {
    use super::*;

    #[tokio::test]
    async fn commit_is_retried_after_commit_transaction_unknown_transaction_commit_result_not_writable_primary(
    ) {
        let t = Scenario::new("commit-retry-errorLabels", "").await;
        t.fail(2, not_writable_primary()).await;
        let events = commit_sent_three_times(None, majority_retry());
        t.replay(None, insert_first(&t), &events, &[1])
            .await
            .unwrap();
    }
}

/// The failure of `commit-retry-errorLabels.yml`: NotWritablePrimary,
/// labelled `RetryableWriteError` (SPEC-1565).
fn not_writable_primary() -> Document {
    doc! {
        "failCommands": ["commitTransaction"], "errorCode": 10107,
        "errorLabels": ["RetryableWriteError"], "closeConnection": false,
    }
}

/// A transaction run three times after its commit failed twice with a
/// `TransientTransactionError` of `code` (`commit-transienttransactionerror*.yml`).
async fn transaction_retried_after_commit_error(file: &str, code: i32) {
    let t = Scenario::new(file, "").await;
    t.fail(
        2,
        doc! { "failCommands": ["commitTransaction"], "errorCode": code, "closeConnection": false },
    )
    .await;
    let events = [
        insert(1, 1, true, false),
        commit(1, None),
        insert(1, 2, true, true),
        commit(2, None),
        insert(1, 3, true, true),
        commit(3, None),
    ];
    t.replay(None, insert_first(&t), &events, &[1])
        .await
        .unwrap();
}

/// `commit-transienttransactionerror.yml`
mod commit_transient_transaction_error {
    use super::*;

    #[tokio::test]
    async fn transaction_is_retried_after_commit_transaction_transient_transaction_error_lock_timeout(
    ) {
        transaction_retried_after_commit_error("commit-transienttransactionerror", 24).await;
    }

    #[tokio::test]
    async fn transaction_is_retried_after_commit_transaction_transient_transaction_error_write_conflict(
    ) {
        transaction_retried_after_commit_error("commit-transienttransactionerror", 112).await;
    }

    #[tokio::test]
    async fn transaction_is_retried_after_commit_transaction_transient_transaction_error_snapshot_unavailable(
    ) {
        transaction_retried_after_commit_error("commit-transienttransactionerror", 246).await;
    }

    #[tokio::test]
    async fn transaction_is_retried_after_commit_transaction_transient_transaction_error_no_such_transaction(
    ) {
        transaction_retried_after_commit_error("commit-transienttransactionerror", 251).await;
    }
}

/// `commit-transienttransactionerror-4.2.yml`
mod commit_transient_transaction_error_4_2 {
    use super::*;

    #[tokio::test]
    async fn transaction_is_retried_after_commit_transaction_transient_transaction_error_prepared_transaction_in_progress(
    ) {
        transaction_retried_after_commit_error("commit-transienttransactionerror-4.2", 267).await;
    }
}

/// `commit-writeconcernerror.yml`
mod commit_write_concern_error {
    use super::*;

    /// A commit whose reply carries `write_concern_error`, `times` times.
    async fn commit_with(times: i32, write_concern_error: Document) -> Scenario {
        let t = Scenario::new("commit-writeconcernerror", "").await;
        t.fail(
            times,
            doc! { "failCommands": ["commitTransaction"], "writeConcernError": write_concern_error },
        )
        .await;
        t
    }

    async fn retried(write_concern_error: Document) {
        let t = commit_with(2, write_concern_error).await;
        let events = commit_sent_three_times(None, majority_retry());
        t.replay(None, insert_first(&t), &events, &[1])
            .await
            .unwrap();
    }

    /// Not retried: the error comes back with `code`, the commit applied.
    async fn not_retried(
        write_concern_error: Document,
        code: i32,
        contain: &[&str],
        omit: &[&str],
    ) {
        let t = commit_with(1, write_concern_error).await;
        let events = [insert(1, 1, true, false), commit(1, None)];
        let err = t
            .replay(None, insert_first(&t), &events, &[1])
            .await
            .unwrap_err();
        assert_eq!(err.code(), Some(code), "{err:?}");
        assert_labels(&err, contain, omit);
    }

    #[tokio::test]
    async fn commit_transaction_is_retried_after_write_concern_timeout_timeout_error() {
        retried(doc! {
            "code": 64, "errmsg": "waiting for replication timed out",
            "errInfo": { "wtimeout": true },
        })
        .await;
    }

    #[tokio::test]
    async fn commit_transaction_is_retried_after_write_concern_timeout_non_timeout_error() {
        retried(doc! { "code": 64, "errmsg": "multiple errors reported" }).await;
    }

    #[tokio::test]
    async fn commit_transaction_is_not_retried_after_unknown_repl_write_concern_error() {
        let error = doc! {
            "code": 79, "codeName": "UnknownReplWriteConcern",
            "errmsg": "No write concern mode named 'foo' found in replica set configuration",
        };
        not_retried(error, 79, &[], &BOTH_LABELS).await;
    }

    #[tokio::test]
    async fn commit_transaction_is_not_retried_after_unsatisfiable_write_concern_error() {
        let error = doc! {
            "code": 100, "codeName": "UnsatisfiableWriteConcern",
            "errmsg": "Not enough data-bearing nodes",
        };
        not_retried(error, 100, &[], &BOTH_LABELS).await;
    }

    #[tokio::test]
    async fn commit_transaction_is_not_retried_after_max_time_ms_expired_error() {
        let error = doc! {
            "code": 50, "codeName": "MaxTimeMSExpired", "errmsg": "operation exceeded time limit",
        };
        let (contain, omit) = (
            [UNKNOWN_TRANSACTION_COMMIT_RESULT],
            [TRANSIENT_TRANSACTION_ERROR],
        );
        not_retried(error, 50, &contain, &omit).await;
    }
}

/// `transaction-options.yml`
mod transaction_options {
    use super::*;

    fn majority_read_w1() -> TransactionOptions {
        TransactionOptions::builder()
            .read_concern(ReadConcern::majority())
            .write_concern(WriteConcern::builder().w(Acknowledgment::Nodes(1)).build())
            .build()
    }

    /// The scenario's one `withTransaction` with `options`, on a client made
    /// with `uri_options` and a session with `defaults`: the insert reads
    /// with `read_concern`, the commit writes with `write_concern`.
    async fn run(
        uri_options: &str,
        defaults: Option<TransactionOptions>,
        options: Option<TransactionOptions>,
        read_concern: Document,
        write_concern: Option<Document>,
    ) {
        let t = Scenario::new("transaction-options", uri_options).await;
        let session = SessionOptions::builder()
            .default_transaction_options(defaults)
            .build();
        let mut s = t
            .client
            .start_session()
            .with_options(session)
            .await
            .unwrap();
        let events = [insert_reading(1, 1, read_concern), commit(1, write_concern)];
        t.replay_on(&mut s, options, insert_first(&t), &events, &[1])
            .await
            .unwrap();
    }

    fn absent() -> Document {
        doc! { "$$exists": false }
    }

    #[tokio::test]
    async fn with_transaction_and_no_transaction_options_set() {
        run("", None, None, absent(), None).await;
    }

    #[tokio::test]
    async fn with_transaction_inherits_transaction_options_from_client() {
        let (read, write) = (doc! { "level": "local" }, Some(doc! { "w": 1 }));
        run("readConcernLevel=local&w=1", None, None, read, write).await;
    }

    #[tokio::test]
    async fn with_transaction_inherits_transaction_options_from_default_transaction_options() {
        let (read, write) = (doc! { "level": "majority" }, Some(doc! { "w": 1 }));
        run("", Some(majority_read_w1()), None, read, write).await;
    }

    #[tokio::test]
    async fn with_transaction_explicit_transaction_options() {
        let (read, write) = (doc! { "level": "majority" }, Some(doc! { "w": 1 }));
        run("", None, Some(majority_read_w1()), read, write).await;
    }

    #[tokio::test]
    async fn with_transaction_explicit_transaction_options_override_default_transaction_options() {
        let defaults = TransactionOptions::builder()
            .read_concern(ReadConcern::snapshot())
            .write_concern(WriteConcern::builder().w(Acknowledgment::Majority).build())
            .build();
        let (read, write) = (doc! { "level": "majority" }, Some(doc! { "w": 1 }));
        run("", Some(defaults), Some(majority_read_w1()), read, write).await;
    }

    #[tokio::test]
    async fn with_transaction_explicit_transaction_options_override_client_options() {
        let uri = "readConcernLevel=local&w=majority";
        let (read, write) = (doc! { "level": "majority" }, Some(doc! { "w": 1 }));
        run(uri, None, Some(majority_read_w1()), read, write).await;
    }
}

/// The prose tests of the specification's tests/README.
mod prose {
    use super::*;

    /// "Callback Raises a Custom Error": returned as it is, the body run once.
    #[tokio::test]
    async fn callback_raises_a_custom_error() {
        let t = Scenario::new("prose", "").await;
        let mut runs = 0;
        let err = transaction(&t.client)
            .run(async |s| {
                runs += 1;
                insert_one(&t.coll, s, 1).await?;
                Err::<(), _>(Error::Model("custom".into()))
            })
            .await
            .unwrap_err();
        assert!(matches!(&err, Error::Model(m) if m == "custom"), "{err:?}");
        assert_eq!(runs, 1, "no retry");
        t.expect_outcome(&[]).await;
    }

    /// "Callback Returns a Value": the value is returned.
    #[tokio::test]
    async fn callback_returns_a_value() {
        let t = Scenario::new("prose", "").await;
        let value = transaction(&t.client)
            .run(async |s| {
                insert_one(&t.coll, s, 1).await?;
                Ok(("inserted", 1))
            })
            .await
            .unwrap();
        assert_eq!(value, ("inserted", 1));
        t.expect_outcome(&[1]).await;
    }

    /// "Retry Timeout is Enforced", its three cases: once the deadline has
    /// passed, the last error comes back in the timeout error, with its
    /// labels. The deadline is made short instead of waiting 120 s.
    async fn timeout_after(times: i32, data: Document, label: &str) {
        let t = Scenario::new("prose-timeout", "").await;
        t.fail(times, data).await;
        let policy = RetryPolicy {
            deadline: Duration::from_millis(100),
            ..RetryPolicy::default()
        };
        let err = transaction(&t.client)
            .with_retry(policy)
            .run(async |s| {
                insert_one(&t.coll, s, 1).await?;
                // Past the deadline before the error is seen.
                tokio::time::sleep(Duration::from_millis(150)).await;
                Ok(())
            })
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::TransactionRetriesExhausted { .. }),
            "a timeout error: {err:?}"
        );
        assert!(
            err.has_label(label),
            "the timeout error carries {label}: {err:?}"
        );
        let Error::TransactionRetriesExhausted { last, .. } = &err else {
            unreachable!()
        };
        assert!(last.has_label(label), "{last:?}");
    }

    #[tokio::test]
    async fn retry_timeout_is_enforced_callback_transient_transaction_error() {
        let t = Scenario::new("prose-timeout", "").await;
        let policy = RetryPolicy {
            deadline: Duration::from_millis(100),
            ..RetryPolicy::default()
        };
        t.fail(
            1,
            doc! {
                "failCommands": ["insert"], "errorCode": 112,
                "errorLabels": [TRANSIENT_TRANSACTION_ERROR],
            },
        )
        .await;
        let err = transaction(&t.client)
            .with_retry(policy)
            .run(async |s| {
                tokio::time::sleep(Duration::from_millis(150)).await;
                insert_one(&t.coll, s, 1).await
            })
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::TransactionRetriesExhausted { .. }),
            "a timeout error: {err:?}"
        );
        assert!(err.has_label(TRANSIENT_TRANSACTION_ERROR), "{err:?}");
        assert_eq!(err.code(), Some(112));
    }

    #[tokio::test]
    async fn retry_timeout_is_enforced_commit_unknown_transaction_commit_result() {
        // Twice: the driver sends a failed commit again once of its own.
        timeout_after(
            2,
            doc! {
                "failCommands": ["commitTransaction"], "errorCode": 10107,
                "errorLabels": ["RetryableWriteError"], "closeConnection": false,
            },
            UNKNOWN_TRANSACTION_COMMIT_RESULT,
        )
        .await;
    }

    #[tokio::test]
    async fn retry_timeout_is_enforced_commit_transient_transaction_error() {
        timeout_after(
            1,
            doc! { "failCommands": ["commitTransaction"], "errorCode": 251 },
            TRANSIENT_TRANSACTION_ERROR,
        )
        .await;
    }

    /// 13 commits failing with NoSuchTransaction, run with the jitter at 0
    /// and at 1.
    async fn thirteen_retries(jitter: f64) -> Duration {
        let t = Scenario::new("prose-backoff", "").await;
        t.fail(
            13,
            doc! { "failCommands": ["commitTransaction"], "errorCode": 251 },
        )
        .await;
        let policy = RetryPolicy {
            jitter: Jitter::Fixed(jitter),
            ..RetryPolicy::default()
        };
        let start = Instant::now();
        transaction(&t.client)
            .with_retry(policy)
            .run(async |s| insert_one_fresh(&t.coll, s).await)
            .await
            .unwrap();
        start.elapsed()
    }

    async fn insert_one_fresh(
        coll: &Collection<Document>,
        s: &mut ClientSession,
    ) -> schema_core::Result<()> {
        coll.insert_one(doc! {}).session(s).await?;
        Ok(())
    }

    /// "Retry Backoff is Enforced": with the jitter at 1 the 13 retries take
    /// about 2.3 s longer than with it at 0 (within half a second).
    #[tokio::test]
    async fn retry_backoff_is_enforced() {
        let no_backoff = thirteen_retries(0.0).await;
        let with_backoff = thirteen_retries(1.0).await;
        let extra = with_backoff.as_secs_f64() - no_backoff.as_secs_f64();
        println!("13 retries: {no_backoff:?} without backoff, {with_backoff:?} with it");
        assert!(
            (extra - 2.3).abs() < 0.5,
            "backoff added {extra:.3} s, expected about 2.3 s"
        );
    }
}
