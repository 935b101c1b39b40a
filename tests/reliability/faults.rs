//! Reliability under faults: a `failCommand` failpoint at every step of a
//! two-sided link, a subset-pattern push and a cascading delete, for every
//! kind of fault a replica set produces (a transient error, a dropped
//! connection, an error on commit, a write-concern error after the commit
//! applied), once and more often than the retry budget; and real write
//! conflicts against a transaction that holds the same document.
//!
//! After every case each operation has applied exactly once or not at all,
//! on every document it touches, and `Links::verify` finds nothing to repair.
//! Each case runs under a timeout; the failpoint is scoped to the operation's
//! own client (`appName`), so setup and checks are never failed.

use crate::models;
use crate::support;

use std::time::{Duration, Instant};

use bson::oid::ObjectId;
use bson::{doc, Document as BsonDocument};
use models::{Course, Student};
use mongodb::{Client, Database};
use schema_core::label::{TRANSIENT_TRANSACTION_ERROR, UNKNOWN_TRANSACTION_COMMIT_RESULT};
use schema_core::prelude::*;
use schema_core::{Error, RetryPolicy, Schema};
use serde::{Deserialize, Serialize};
use support::failpoint::{self, FAILPOINT};
use support::{CommandLog, Failure};

/// The most one case may take, retries and reconnections included.
const CASE_TIMEOUT: Duration = Duration::from_secs(60);

/// The retry budget of the "more often than the budget" cases: this many
/// starts of the transaction, within [`DEADLINE`] (the commit retries
/// after `UnknownTransactionCommitResult`, which the specification does not
/// count as attempts, are bounded by the deadline alone).
const BUDGET: u32 = 3;
const DEADLINE: Duration = Duration::from_secs(3);

/// How often the failpoint fires in those cases: more than every command
/// the budget can send within its deadline (each attempt's statements, its
/// commit, the commit's retries and the driver's own retry of each).
const PERSISTENT: i64 = 100_000;

/// A subset-pattern parent: the newest five messages embedded, every message
/// in `fault_messages`.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "fault_rooms")]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 5, keep = "newest", history = Message)]
    recent: Vec<Recent>,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Recent {
    n: i32,
    text: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "fault_messages")]
struct Message {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[reference(index, to = Room, sort(n = desc))]
    room_id: String,
    n: i32,
    text: String,
}

/// A client whose commands (and failed commands) are recorded, with an
/// `appName` of its own so that a failpoint can target it alone.
#[derive(Clone)]
struct Faulty {
    client: Client,
    app: String,
    log: CommandLog,
}

impl Faulty {
    async fn new(app: &str) -> Faulty {
        let (client, log) = support::counting_client_with(|options| {
            options.app_name = Some(app.to_owned());
            // After a "shutting down" or "stepped down" error the driver marks the
            // server unknown and waits for its monitor to see it again: check at
            // the shortest interval the driver allows, as a client of a real
            // replica set would wait for its next heartbeat (10 s by default).
            options.heartbeat_freq = Some(Duration::from_millis(500));
        })
        .await;
        Faulty {
            client,
            app: app.to_owned(),
            log,
        }
    }

    /// The operations sent and the failures seen since the last `take`.
    fn take(&self) -> (Vec<String>, Vec<Failure>) {
        (self.log.take_operations(), self.log.take_failures())
    }
}

/// An admin client, a [`Faulty`] client with the `appName` `app`, and a
/// fresh database named after `app`, as the admin sees it and as the faulty
/// client does.
async fn clients(app: &str) -> (Client, Faulty, Database, Database) {
    let admin = support::client().await;
    let faulty = Faulty::new(app).await;
    let db = support::fresh_db(&admin, app).await;
    let fdb = faulty.client.database(db.name());
    (admin, faulty, db, fdb)
}

/// One command of an operation's transaction: its name, and how many
/// commands of that name the attempt sends before it; with `and_abort`, the
/// `abortTransaction` the runner sends after that command fails fails too.
#[derive(Debug, Clone, Copy)]
struct Step {
    command: &'static str,
    skip: i64,
    and_abort: bool,
}

impl Step {
    fn commands(&self) -> Vec<&'static str> {
        if self.and_abort {
            vec![self.command, "abortTransaction"]
        } else {
            vec![self.command]
        }
    }
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} #{}", self.command, self.skip + 1)?;
        if self.and_abort {
            write!(f, " and its abortTransaction")?;
        }
        Ok(())
    }
}

/// What goes wrong at a step.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    /// WriteConflict (112) labelled `TransientTransactionError`.
    Transient,
    /// The server drops the connection instead of answering.
    CloseConnection,
    /// On commit: ShutdownInProgress (91) labelled `UnknownTransactionCommitResult`.
    CommitUnknown,
    /// On commit: PrimarySteppedDown (189); the server labels it
    /// `RetryableWriteError` (the driver retries the commit once itself).
    CommitSteppedDown,
    /// On commit: the commit applies, then a `writeConcernError` (64,
    /// wtimeout) labelled `UnknownTransactionCommitResult` comes back.
    CommitWriteConcern,
}

impl Fault {
    const ALL: [Fault; 5] = [
        Fault::Transient,
        Fault::CloseConnection,
        Fault::CommitUnknown,
        Fault::CommitSteppedDown,
        Fault::CommitWriteConcern,
    ];

    fn applies_to(self, step: Step) -> bool {
        match self {
            Fault::Transient | Fault::CloseConnection => true,
            _ => step.command == "commitTransaction",
        }
    }

    fn data(self, step: Step) -> BsonDocument {
        let mut data = doc! { "failCommands": step.commands() };
        match self {
            Fault::Transient => {
                data.insert("errorCode", 112);
                data.insert("errorLabels", vec![TRANSIENT_TRANSACTION_ERROR]);
            }
            Fault::CloseConnection => {
                data.insert("closeConnection", true);
            }
            Fault::CommitUnknown => {
                data.insert("errorCode", 91);
                data.insert("errorLabels", vec![UNKNOWN_TRANSACTION_COMMIT_RESULT]);
            }
            Fault::CommitSteppedDown => {
                data.insert("errorCode", 189);
            }
            Fault::CommitWriteConcern => {
                data.insert(
                    "writeConcernError",
                    doc! {
                        "code": 64, "codeName": "WriteConcernFailed",
                        "errmsg": "waiting for replication timed out",
                        "errInfo": { "wtimeout": true },
                    },
                );
                data.insert("errorLabels", vec![UNKNOWN_TRANSACTION_COMMIT_RESULT]);
            }
        }
        data
    }

    /// Whether the failed command may nevertheless have applied: only then
    /// can an operation that returned an error have applied.
    fn may_apply_and_fail(self) -> bool {
        self == Fault::CommitWriteConcern
    }
}

/// How often the failpoint fires.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Times {
    /// Once: the operation must succeed and apply exactly once.
    Once,
    /// More than the retry budget: the operation must fail, and apply not at
    /// all (or, when the fault lets the command apply, exactly once).
    Persistent,
}

async fn arm(admin: &Client, faulty: &Faulty, fault: Fault, step: Step, times: Times) {
    let times = match times {
        Times::Once => step.commands().len() as i64,
        Times::Persistent => PERSISTENT,
    };
    let mode = doc! { "skip": step.skip, "times": times };
    failpoint::arm(admin, &faulty.app, mode, fault.data(step)).await;
}

/// What an operation left behind.
#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    /// Every document it touches shows it, once.
    Applied,
    /// No document it touches shows it.
    NotApplied,
}

/// The outcome of one case, for the summary.
struct Outcome {
    line: String,
}

/// Runs one case: arm, operate (under a timeout), disarm, check.
#[allow(clippy::too_many_arguments)]
async fn run_case<Fut>(
    admin: &Client,
    faulty: &Faulty,
    what: &str,
    step: Step,
    fault: Fault,
    times: Times,
    op: Fut,
    state: impl std::future::Future<Output = Result<State, String>>,
) -> Outcome
where
    Fut: std::future::IntoFuture<Output = schema_core::Result<()>>,
{
    faulty.take();
    arm(admin, faulty, fault, step, times).await;
    let started = Instant::now();
    let result = tokio::time::timeout(CASE_TIMEOUT, op.into_future()).await;
    let took = started.elapsed();
    failpoint::off(admin).await;
    let (sent, failed) = faulty.take();
    let case = format!("{what} / {step} / {fault:?} x{times:?}");
    let result = result.unwrap_or_else(|_| panic!("{case}: no answer within {CASE_TIMEOUT:?}"));
    let state = match state.await {
        Ok(state) => state,
        Err(half) => panic!("{case}: half applied: {half}; result {result:?}; sent {sent:?}"),
    };
    assert!(
        !failed.is_empty(),
        "{case}: the failpoint never fired; sent {sent:?}"
    );
    match (times, &result, state) {
        (Times::Once, Ok(()), State::Applied) => {}
        (Times::Persistent, Err(_), State::NotApplied) => {}
        (Times::Persistent, Err(e), State::Applied) if fault.may_apply_and_fail() => {
            assert!(
                e.commit_outcome_unknown() && e.to_string().contains("may have applied"),
                "{case}: an error after the commit applied must say the outcome is unknown: {e}"
            );
        }
        _ => panic!(
            "{case}: result {result:?} with state {state:?}; sent {sent:?}; failed {failed:?}"
        ),
    }
    let result = match &result {
        Ok(()) => "Ok".to_owned(),
        Err(e) => error_kind(e),
    };
    Outcome {
        line: format!(
            "{case}: {result}, {state:?}, {} commands ({} failed), {} ms",
            sent.len(),
            failed.len(),
            took.as_millis()
        ),
    }
}

fn error_kind(e: &Error) -> String {
    match e {
        Error::TransactionRetriesExhausted { attempts, .. } => {
            format!("Err(retries exhausted after {attempts})")
        }
        other => format!(
            "Err({})",
            other.code().map_or("-".into(), |c| c.to_string())
        ),
    }
}

/// Every command of the transaction; the last statement (the one after
/// which the runner has something to abort) also with its abort failing.
fn steps(commands: &[&'static str]) -> Vec<Step> {
    let mut out = Vec::new();
    for (i, command) in commands.iter().enumerate() {
        let skip = commands[..i].iter().filter(|c| *c == command).count() as i64;
        out.push(Step {
            command,
            skip,
            and_abort: false,
        });
        if i + 2 == commands.len() {
            out.push(Step {
                command,
                skip,
                and_abort: true,
            });
        }
    }
    out
}

fn cases(commands: &[&'static str]) -> Vec<(Step, Fault, Times)> {
    let mut out = Vec::new();
    for step in steps(commands) {
        for fault in Fault::ALL {
            if fault.applies_to(step) {
                for times in [Times::Once, Times::Persistent] {
                    out.push((step, fault, times));
                }
            }
        }
    }
    out
}

fn policy(times: Times) -> RetryPolicy {
    match times {
        Times::Once => RetryPolicy::default(),
        Times::Persistent => RetryPolicy {
            deadline: DEADLINE,
            ..RetryPolicy::attempts(BUDGET)
        },
    }
}

fn student(id: &str) -> Student {
    Student::new(id, id.to_uppercase())
}

fn course(id: &str) -> Course {
    Course::new(id, id.to_uppercase())
}

fn report(title: &str, outcomes: &[Outcome]) {
    println!("{title}: {} cases", outcomes.len());
    for o in outcomes {
        println!("  {}", o.line);
    }
}

/// Link: `update` (student side), `update` (course side), `commitTransaction`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_under_every_fault_at_every_step_applies_once_or_not_at_all() {
    let _turn = FAILPOINT.lock().await;
    let (admin, faulty, db, fdb) = clients("fault_link").await;
    models::school::schema().sync(&db).await.unwrap();
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);

    let mut outcomes = Vec::new();
    for (i, (step, fault, times)) in cases(&["update", "update", "commitTransaction"])
        .into_iter()
        .enumerate()
    {
        let (s, c) = (format!("s{i}"), format!("c{i}"));
        students.insert(&student(&s)).await.unwrap();
        courses.insert(&course(&c)).await.unwrap();
        let links = Links::new(&fdb, Student::FIELDS.course_ids).with_retry(policy(times));
        let state = async {
            let st = students.get(&s).await.unwrap().unwrap();
            let co = courses.get(&c).await.unwrap().unwrap();
            match (st.course_ids.as_slice(), co.student_ids.as_slice()) {
                ([x], [y]) if *x == c && *y == s => Ok(State::Applied),
                ([], []) => Ok(State::NotApplied),
                (a, b) => Err(format!("student has {a:?}, course has {b:?}")),
            }
        };
        outcomes.push(
            run_case(
                &admin,
                &faulty,
                "link",
                step,
                fault,
                times,
                links.link(&s, &c),
                state,
            )
            .await,
        );
        let report = Links::new(&db, Student::FIELDS.course_ids)
            .verify()
            .await
            .unwrap();
        assert!(report.is_consistent(), "{report:?}");
    }
    report("link", &outcomes);
}

/// The subset pattern: `update` (the parent keeps the newest five),
/// `insert` (the full message into the history), `commitTransaction`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subset_push_under_every_fault_at_every_step_applies_once_or_not_at_all() {
    let _turn = FAILPOINT.lock().await;
    let (admin, faulty, db, fdb) = clients("fault_subset").await;
    Schema::new()
        .with::<Room>()
        .with::<Message>()
        .sync(&db)
        .await
        .unwrap();
    let rooms = Repo::<Room>::new(&db);
    let messages = Repo::<Message>::new(&db);

    let mut outcomes = Vec::new();
    for (i, (step, fault, times)) in cases(&["update", "insert", "commitTransaction"])
        .into_iter()
        .enumerate()
    {
        let room = format!("r{i}");
        // Four messages already: the fifth fills the parent to its max.
        let recent: Vec<Recent> = (0..4)
            .map(|n| Recent {
                n,
                text: format!("m{n}"),
            })
            .collect();
        rooms
            .insert(&Room {
                id: room.clone(),
                recent,
            })
            .await
            .unwrap();
        let message = Message {
            id: ObjectId::new(),
            room_id: room.clone(),
            n: 4,
            text: "m4".into(),
        };
        let frooms = Repo::<Room>::new(&fdb).with_retry(policy(times));
        let item = Recent {
            n: 4,
            text: "m4".into(),
        };
        let op = async {
            frooms
                .embed(Room::FIELDS.recent)
                .push_keeping(&room, &item, &message)
                .await
        };
        let state = async {
            let kept = rooms.get(&room).await.unwrap().unwrap().recent;
            let in_parent = kept.iter().filter(|r| r.n == 4).count();
            let in_history = messages.count(doc! { "roomId": &room }).await.unwrap();
            match (kept.len(), in_parent, in_history) {
                (5, 1, 1) => Ok(State::Applied),
                (4, 0, 0) => Ok(State::NotApplied),
                (len, p, h) => Err(format!(
                    "the parent keeps {len} ({p} of them the new one), the history holds {h}"
                )),
            }
        };
        outcomes.push(
            run_case(
                &admin,
                &faulty,
                "push_keeping",
                step,
                fault,
                times,
                op,
                state,
            )
            .await,
        );
    }
    report("push_keeping", &outcomes);
}

/// A cascading delete: `update` (pull the id from every course that lists
/// it), `delete` (the student), `commitTransaction`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cascade_delete_under_every_fault_at_every_step_applies_once_or_not_at_all() {
    let _turn = FAILPOINT.lock().await;
    let (admin, faulty, db, fdb) = clients("fault_delete").await;
    models::school::schema().sync(&db).await.unwrap();
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    let links = Links::new(&db, Student::FIELDS.course_ids);

    let mut outcomes = Vec::new();
    for (i, (step, fault, times)) in cases(&["update", "delete", "commitTransaction"])
        .into_iter()
        .enumerate()
    {
        let s = format!("s{i}");
        let (a, b) = (format!("c{i}a"), format!("c{i}b"));
        students.insert(&student(&s)).await.unwrap();
        for c in [&a, &b] {
            courses.insert(&course(c)).await.unwrap();
            links.link(&s, c).await.unwrap();
        }
        // Another student stays on both courses.
        let other = format!("o{i}");
        students.insert(&student(&other)).await.unwrap();
        for c in [&a, &b] {
            links.link(&other, c).await.unwrap();
        }
        let fstudents = Repo::<Student>::new(&fdb).with_retry(policy(times));
        let op = async {
            let existed = fstudents.delete(&s).await?;
            assert!(existed, "the student existed");
            Ok(())
        };
        let state = async {
            let gone = students.get(&s).await.unwrap().is_none();
            let mut listed = 0;
            for c in [&a, &b] {
                let co = courses.get(c).await.unwrap().unwrap();
                assert!(co.student_ids.contains(&other), "{co:?}");
                listed += co.student_ids.iter().filter(|x| **x == s).count();
            }
            match (gone, listed) {
                (true, 0) => Ok(State::Applied),
                (false, 2) => Ok(State::NotApplied),
                (gone, listed) => Err(format!(
                    "student deleted: {gone}; {listed} of 2 courses still list it"
                )),
            }
        };
        outcomes.push(run_case(&admin, &faulty, "delete", step, fault, times, op, state).await);
        let report = links.verify().await.unwrap();
        assert!(report.is_consistent(), "{report:?}");
    }
    report("cascade delete", &outcomes);
}

/// Holds a write on one document in a transaction of its own (as a
/// concurrent writer would), until released.
struct Blocker {
    session: mongodb::ClientSession,
}

impl Blocker {
    async fn hold(client: &Client, db: &Database, collection: &str, id: &str) -> Blocker {
        let mut session = client.start_session().await.unwrap();
        session.start_transaction().await.unwrap();
        // `heldBy` is no field of the models, which the closed validators
        // refuse: the blocker bypasses them (its transaction is aborted, so
        // the document never holds it).
        db.collection::<BsonDocument>(collection)
            .update_one(doc! { "_id": id }, doc! { "$set": { "heldBy": "blocker" } })
            .bypass_document_validation(true)
            .session(&mut session)
            .await
            .unwrap();
        Blocker { session }
    }

    async fn release(mut self) {
        self.session.abort_transaction().await.unwrap();
    }
}

/// Waits (bounded) until the faulty client has seen a write conflict.
async fn first_conflict(faulty: &Faulty) -> Duration {
    let started = Instant::now();
    tokio::time::timeout(CASE_TIMEOUT, async {
        loop {
            if faulty.log.failures().iter().any(|f| {
                let f = f.to_string();
                f.contains("WriteConflict") || f.contains("112")
            }) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("a write conflict within the case timeout");
    started.elapsed()
}

/// Real write conflicts (no failpoint): another transaction holds the
/// document the operation writes at a given step; the operation conflicts,
/// retries, and applies exactly once after the other transaction ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_write_conflicts_at_each_step_are_retried_and_apply_once() {
    let (admin, faulty, db, fdb) = clients("fault_conflict").await;
    models::school::schema().sync(&db).await.unwrap();
    Schema::new()
        .with::<Room>()
        .with::<Message>()
        .sync(&db)
        .await
        .unwrap();
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    let rooms = Repo::<Room>::new(&db);
    // Patient enough to outlast the blocker on a loaded machine.
    let patient = RetryPolicy {
        max_attempts: Some(1000),
        deadline: Duration::from_secs(30),
        ..RetryPolicy::default()
    };
    let mut lines = Vec::new();

    // Link, conflicting at the student's update, then at the course's.
    for (step, collection) in [("update #1", "students"), ("update #2", "courses")] {
        let (s, c) = (format!("s_{collection}"), format!("c_{collection}"));
        students.insert(&student(&s)).await.unwrap();
        courses.insert(&course(&c)).await.unwrap();
        let held = if collection == "students" { &s } else { &c };
        let blocker = Blocker::hold(&admin, &db, collection, held).await;
        faulty.take();
        let links = Links::new(&fdb, Student::FIELDS.course_ids).with_retry(patient.clone());
        let (s2, c2) = (s.clone(), c.clone());
        let task = tokio::spawn(async move { links.link(&s2, &c2).await });
        let waited = first_conflict(&faulty).await;
        blocker.release().await;
        tokio::time::timeout(CASE_TIMEOUT, task)
            .await
            .expect("link within the case timeout")
            .unwrap()
            .unwrap();
        let (sent, failed) = faulty.take();
        let st = students.get(&s).await.unwrap().unwrap();
        let co = courses.get(&c).await.unwrap().unwrap();
        assert_eq!((st.course_ids, co.student_ids), (vec![c], vec![s]));
        lines.push(format!(
            "link / {step} held by another transaction: Ok, applied once after {} conflicts \
             ({} commands, first conflict after {} ms)",
            failed.len(),
            sent.len(),
            waited.as_millis()
        ));
    }

    // The subset push, conflicting at the parent's update.
    rooms
        .insert(&Room {
            id: "r1".into(),
            recent: Vec::new(),
        })
        .await
        .unwrap();
    let blocker = Blocker::hold(&admin, &db, "fault_rooms", "r1").await;
    faulty.take();
    let frooms = Repo::<Room>::new(&fdb).with_retry(patient.clone());
    let task = tokio::spawn(async move {
        let message = Message {
            id: ObjectId::new(),
            room_id: "r1".into(),
            n: 0,
            text: "hello".into(),
        };
        let item = Recent {
            n: 0,
            text: "hello".into(),
        };
        frooms
            .embed(Room::FIELDS.recent)
            .push_keeping(&"r1".to_owned(), &item, &message)
            .await
    });
    first_conflict(&faulty).await;
    blocker.release().await;
    tokio::time::timeout(CASE_TIMEOUT, task)
        .await
        .expect("push within the case timeout")
        .unwrap()
        .unwrap();
    let (_, failed) = faulty.take();
    assert_eq!(
        rooms
            .get(&"r1".to_owned())
            .await
            .unwrap()
            .unwrap()
            .recent
            .len(),
        1
    );
    assert_eq!(
        Repo::<Message>::new(&db)
            .count(doc! { "roomId": "r1" })
            .await
            .unwrap(),
        1
    );
    lines.push(format!(
        "push_keeping / update #1 held by another transaction: Ok, applied once after {} conflicts",
        failed.len()
    ));

    // The cascade delete, conflicting at the course's update, then at the student's delete.
    let links = Links::new(&db, Student::FIELDS.course_ids);
    for (step, collection) in [("update #1", "courses"), ("delete #1", "students")] {
        let (s, c) = (format!("ds_{collection}"), format!("dc_{collection}"));
        students.insert(&student(&s)).await.unwrap();
        courses.insert(&course(&c)).await.unwrap();
        links.link(&s, &c).await.unwrap();
        let held = if collection == "students" { &s } else { &c };
        let blocker = Blocker::hold(&admin, &db, collection, held).await;
        faulty.take();
        let fstudents = Repo::<Student>::new(&fdb).with_retry(patient.clone());
        let s2 = s.clone();
        let task = tokio::spawn(async move { fstudents.delete(&s2).await });
        first_conflict(&faulty).await;
        blocker.release().await;
        let existed = tokio::time::timeout(CASE_TIMEOUT, task)
            .await
            .expect("delete within the case timeout")
            .unwrap()
            .unwrap();
        assert!(existed);
        let (_, failed) = faulty.take();
        assert!(students.get(&s).await.unwrap().is_none());
        assert!(courses
            .get(&c)
            .await
            .unwrap()
            .unwrap()
            .student_ids
            .is_empty());
        lines.push(format!(
            "delete / {step} held by another transaction: Ok, applied once after {} conflicts",
            failed.len()
        ));
    }
    let report = links.verify().await.unwrap();
    assert!(report.is_consistent(), "{report:?}");
    println!("write conflicts: {} cases", lines.len());
    for line in lines {
        println!("  {line}");
    }
}
