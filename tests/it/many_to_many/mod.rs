//! Many-to-many with id arrays on both sides (seed 000's students and
//! courses): link and unlink in one transaction, retried on transient
//! errors, bounded on both sides, cascaded on delete, verified and repaired;
//! one-sided links in one write; and a clear refusal on a standalone.

mod hot_links;
mod through;

use crate::models;
use crate::support;

use std::sync::Arc;

use bson::{doc, Document as BsonDocument};
use models::{Course, Student};
use mongodb::{Client, Database};
use schema_core::prelude::*;
use schema_core::{transaction, AsymmetryKind, RetryPolicy};
use schema_core::{Error, Schema};
use schema_testkit::server::{Server, ServerOptions};
use serde::{Deserialize, Serialize};
use support::failpoint::{self, FAILPOINT};
use support::CommandLog;

/// A client with its own `appName` (so a failpoint can target it alone)
/// whose commands are recorded.
async fn named_client(app: &str) -> (Client, CommandLog) {
    support::counting_client_with(|options| options.app_name = Some(app.to_owned())).await
}

/// The operations sent since the last `take`.
fn take(log: &CommandLog) -> Vec<String> {
    log.take_operations()
}

async fn school(db: &Database, students: usize, courses: usize) -> (Repo<Student>, Repo<Course>) {
    models::school::schema().sync(db).await.unwrap();
    let s = Repo::<Student>::new(db);
    let c = Repo::<Course>::new(db);
    for i in 0..students {
        s.insert(&Student::new(format!("student_{i}"), format!("S{i}")))
            .await
            .unwrap();
    }
    for i in 0..courses {
        c.insert(&Course::new(format!("c_{i}"), format!("Course {i}")))
            .await
            .unwrap();
    }
    (s, c)
}

async fn sides(
    s: &Repo<Student>,
    c: &Repo<Course>,
    sid: &str,
    cid: &str,
) -> (Vec<String>, Vec<String>) {
    let student = s.get(&sid.to_owned()).await.unwrap().unwrap();
    let course = c.get(&cid.to_owned()).await.unwrap().unwrap();
    (student.course_ids, course.student_ids)
}

fn id(s: &str) -> String {
    s.to_owned()
}

#[tokio::test]
async fn link_writes_both_sides_in_one_transaction_and_unlink_removes_both() {
    let (client, log) = named_client("m2m_link").await;
    let db = support::fresh_db(&client, "m2m_link").await;
    let (s, c) = school(&db, 2, 2).await;
    let links = Links::new(&db, Student::FIELDS.course_ids);
    assert!(links.is_two_sided());

    links.link(&id("student_0"), &id("c_0")).await.unwrap();
    take(&log);
    links.link(&id("student_1"), &id("c_0")).await.unwrap();
    assert_eq!(
        take(&log),
        ["update", "update", "commitTransaction"],
        "the transaction's own commands"
    );
    links.link(&id("student_1"), &id("c_0")).await.unwrap(); // idempotent

    assert_eq!(
        sides(&s, &c, "student_0", "c_0").await,
        (vec![id("c_0")], vec![id("student_0"), id("student_1")])
    );
    links.unlink(&id("student_0"), &id("c_0")).await.unwrap();
    assert_eq!(
        sides(&s, &c, "student_0", "c_0").await,
        (vec![], vec![id("student_1")])
    );
    // Unlinking what is not linked is fine.
    links.unlink(&id("student_0"), &id("c_1")).await.unwrap();

    // With the caller's session and no transaction in progress on it, the
    // helper runs (and commits) a transaction of its own on that session.
    let mut session = client.start_session().await.unwrap();
    links
        .link(&id("student_0"), &id("c_1"))
        .session(&mut session)
        .await
        .unwrap();
    assert_eq!(
        sides(&s, &c, "student_0", "c_1").await,
        (vec![id("c_1")], vec![id("student_0")])
    );
    links
        .unlink(&id("student_0"), &id("c_1"))
        .session(&mut session)
        .await
        .unwrap();
    assert_eq!(sides(&s, &c, "student_0", "c_1").await, (vec![], vec![]));

    let err = links.link(&id("student_0"), &id("nope")).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::NotFound {
                collection: "courses",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        s.get(&id("student_0"))
            .await
            .unwrap()
            .unwrap()
            .course_ids
            .is_empty(),
        "nothing written"
    );
}

#[tokio::test]
async fn a_failure_between_the_two_writes_leaves_both_sides_as_they_were() {
    let _turn = FAILPOINT.lock().await;
    let app = "m2m_between";
    let (client, log) = named_client(app).await;
    let db = support::fresh_db(&client, "m2m_between").await;
    let (s, c) = school(&db, 2, 2).await;
    let links = Links::new(&db, Student::FIELDS.course_ids);
    links.link(&id("student_0"), &id("c_1")).await.unwrap();

    // The first `update` (the student side) goes through, the second fails.
    failpoint::arm(
        &client,
        app,
        doc! { "skip": 1 },
        doc! {
            "failCommands": ["update"], "errorCode": 2,
        },
    )
    .await;
    take(&log);
    let err = links.link(&id("student_0"), &id("c_0")).await.unwrap_err();
    let sent = take(&log);
    failpoint::off(&client).await;
    assert_eq!(err.code(), Some(2), "{err}");
    assert_eq!(sent, ["update", "update", "abortTransaction"]);
    assert_eq!(
        sides(&s, &c, "student_0", "c_0").await,
        (vec![id("c_1")], vec![]),
        "rolled back, consistent"
    );

    // The same with an error raised by the caller's own body after the link
    // (composing the helper into the caller's transaction).
    let err = transaction(&client)
        .run(async |session| {
            links
                .link(&id("student_1"), &id("c_0"))
                .session(session)
                .await?;
            Err::<(), _>(Error::Model("crash between the two writes".into()))
        })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("crash"), "{err}");
    assert_eq!(
        sides(&s, &c, "student_1", "c_0").await,
        (vec![], vec![]),
        "rolled back, consistent"
    );

    let report = links.verify().await.unwrap();
    assert!(report.is_consistent(), "{report:?}");
}

#[tokio::test]
async fn a_transient_error_on_the_first_attempt_is_retried_and_applied_once() {
    let _turn = FAILPOINT.lock().await;
    let app = "m2m_transient";
    let (client, log) = named_client(app).await;
    let db = support::fresh_db(&client, "m2m_transient").await;
    let (s, c) = school(&db, 1, 1).await;
    let links = Links::new(&db, Student::FIELDS.course_ids);

    failpoint::conflict(&client, app, 1, &["update"]).await;
    take(&log);
    links.link(&id("student_0"), &id("c_0")).await.unwrap();
    let sent = take(&log);
    failpoint::off(&client).await;
    // Attempt 1 fails on its first write and is aborted; attempt 2 commits.
    assert_eq!(
        sent,
        [
            "update",
            "abortTransaction",
            "update",
            "update",
            "commitTransaction"
        ]
    );
    assert_eq!(
        sides(&s, &c, "student_0", "c_0").await,
        (vec![id("c_0")], vec![id("student_0")])
    );

    // An unknown commit result: the commit alone is retried.
    failpoint::arm(
        &client,
        app,
        doc! { "times": 1 },
        doc! {
            "failCommands": ["commitTransaction"], "errorCode": 91,
            "errorLabels": ["UnknownTransactionCommitResult"],
        },
    )
    .await;
    links.unlink(&id("student_0"), &id("c_0")).await.unwrap();
    let sent = take(&log);
    failpoint::off(&client).await;
    let commits = sent.iter().filter(|n| *n == "commitTransaction").count();
    assert!(commits >= 2, "{sent:?}");
    assert_eq!(
        sent.iter().filter(|n| *n == "update").count(),
        2,
        "the body ran once: {sent:?}"
    );
    assert_eq!(sides(&s, &c, "student_0", "c_0").await, (vec![], vec![]));

    // A transient error that does not go away: bounded retries, then a clear error.
    failpoint::conflict(&client, app, 100, &["update"]).await;
    let err = Links::new(&db, Student::FIELDS.course_ids)
        .with_retry(RetryPolicy::attempts(3))
        .link(&id("student_0"), &id("c_0"))
        .await
        .unwrap_err();
    failpoint::off(&client).await;
    assert!(
        matches!(err, Error::TransactionRetriesExhausted { attempts: 3, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("3 attempts"), "{err}");
    assert_eq!(
        sides(&s, &c, "student_0", "c_0").await,
        (vec![], vec![]),
        "nothing written"
    );
}

/// Small bounds, so that sides fill up.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "pupils")]
struct Pupil {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Class, inverse = pupil_ids, max = 3)]
    class_ids: Vec<String>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "classes")]
struct Class {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Pupil, inverse = class_ids, max = 6)]
    pupil_ids: Vec<String>,
}

async fn small_school(db: &Database) -> (Repo<Pupil>, Repo<Class>) {
    Schema::new()
        .with::<Pupil>()
        .with::<Class>()
        .sync(db)
        .await
        .unwrap();
    let pupils = Repo::<Pupil>::new(db);
    let classes = Repo::<Class>::new(db);
    for i in 0..10 {
        pupils
            .insert(&Pupil {
                id: format!("p{i}"),
                class_ids: Vec::new(),
            })
            .await
            .unwrap();
    }
    for i in 0..5 {
        classes
            .insert(&Class {
                id: format!("k{i}"),
                pupil_ids: Vec::new(),
            })
            .await
            .unwrap();
    }
    (pupils, classes)
}

#[tokio::test]
async fn linking_into_a_full_side_fails_and_writes_nothing() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "m2m_full").await;
    let (pupils, classes) = small_school(&db).await;
    let links = Links::new(&db, Pupil::FIELDS.class_ids);

    // The pupil side holds at most 3.
    for k in 0..3 {
        links.link(&id("p0"), &format!("k{k}")).await.unwrap();
    }
    let err = links.link(&id("p0"), &id("k3")).await.unwrap_err();
    assert!(
        matches!(&err, Error::LinkFull { collection: "pupils", field: "classIds", max: 3, id } if id == "p0"),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("`pupils.classIds` of `p0` is full"),
        "{err}"
    );
    assert!(
        classes
            .get(&id("k3"))
            .await
            .unwrap()
            .unwrap()
            .pupil_ids
            .is_empty(),
        "nothing written"
    );
    // Re-linking an existing edge of a full side is fine.
    links.link(&id("p0"), &id("k0")).await.unwrap();

    // The class side holds at most 6; the pupil side is written first and rolled back.
    for p in 1..7 {
        links.link(&format!("p{p}"), &id("k4")).await.unwrap();
    }
    let err = links.link(&id("p7"), &id("k4")).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::LinkFull {
                collection: "classes",
                max: 6,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        pupils
            .get(&id("p7"))
            .await
            .unwrap()
            .unwrap()
            .class_ids
            .is_empty(),
        "rolled back"
    );
    assert!(links.verify().await.unwrap().is_consistent());
}

#[tokio::test]
async fn deleting_a_document_removes_its_id_from_the_other_side_in_the_same_transaction() {
    let (client, log) = named_client("m2m_delete").await;
    let db = support::fresh_db(&client, "m2m_delete").await;
    let (s, c) = school(&db, 2, 3).await;
    let links = Links::new(&db, Student::FIELDS.course_ids);
    for k in 0..3 {
        links
            .link(&id("student_0"), &format!("c_{k}"))
            .await
            .unwrap();
        links
            .link(&id("student_1"), &format!("c_{k}"))
            .await
            .unwrap();
    }
    take(&log);
    assert!(s.delete(&id("student_0")).await.unwrap());
    let sent = take(&log);
    assert_eq!(sent, ["update", "delete", "commitTransaction"]);
    for k in 0..3 {
        let course = c.get(&format!("c_{k}")).await.unwrap().unwrap();
        assert_eq!(course.student_ids, [id("student_1")]);
    }
    // And from the other side.
    assert!(c.delete(&id("c_1")).await.unwrap());
    let student = s.get(&id("student_1")).await.unwrap().unwrap();
    assert_eq!(student.course_ids, [id("c_0"), id("c_2")]);
    assert!(!s.delete(&id("student_0")).await.unwrap(), "already gone");
    assert!(links.verify().await.unwrap().is_consistent());
}

#[tokio::test]
async fn verify_reports_asymmetric_edges_and_repair_fixes_them() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "m2m_verify").await;
    let (_, _) = school(&db, 3, 3).await;
    let links = Links::new(&db, Student::FIELDS.course_ids);
    links.link(&id("student_0"), &id("c_0")).await.unwrap();

    // Writes that bypassed the helpers (as Mongoid's two unrelated writes do).
    let raw_s = db.collection::<BsonDocument>("students");
    let raw_c = db.collection::<BsonDocument>("courses");
    raw_s
        .update_one(
            doc! { "_id": "student_1" },
            doc! { "$push": { "courseIds": { "$each": ["c_1", "c_gone"] } } },
        )
        .await
        .unwrap();
    raw_c
        .update_one(
            doc! { "_id": "c_2" },
            doc! { "$push": { "studentIds": { "$each": ["student_2", "student_gone"] } } },
        )
        .await
        .unwrap();

    let report = links.verify().await.unwrap();
    let mut found: Vec<(String, String, AsymmetryKind)> = report
        .asymmetric
        .iter()
        .map(|a| {
            (
                a.left.as_str().unwrap().to_owned(),
                a.right.as_str().unwrap().to_owned(),
                a.kind,
            )
        })
        .collect();
    found.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    assert_eq!(
        found,
        [
            (id("student_1"), id("c_1"), AsymmetryKind::MissingOnRight),
            (id("student_1"), id("c_gone"), AsymmetryKind::RightMissing),
            (id("student_2"), id("c_2"), AsymmetryKind::MissingOnLeft),
            (id("student_gone"), id("c_2"), AsymmetryKind::LeftMissing),
        ]
    );

    let repaired = links.repair().await.unwrap();
    assert_eq!((repaired.completed, repaired.removed), (2, 2));
    let report = links.verify().await.unwrap();
    assert!(report.is_consistent(), "{report:?}");
    assert_eq!(report.edges, 3);
}

/// One-sided: only the student keeps the array.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "readers")]
struct Reader {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(one_sided, to = Course, max = 2)]
    course_ids: Vec<String>,
}

#[tokio::test]
async fn a_one_sided_link_is_one_write_without_a_transaction() {
    let (client, log) = named_client("m2m_one_sided").await;
    let db = support::fresh_db(&client, "m2m_one_sided").await;
    let (_, _) = school(&db, 0, 3).await;
    Schema::new().with::<Reader>().sync(&db).await.unwrap();
    let readers = Repo::<Reader>::new(&db);
    readers
        .insert(&Reader {
            id: id("r0"),
            course_ids: Vec::new(),
        })
        .await
        .unwrap();
    let links = Links::new(&db, Reader::FIELDS.course_ids);
    assert!(!links.is_two_sided());
    take(&log);
    links.link(&id("r0"), &id("c_0")).await.unwrap();
    assert_eq!(take(&log), ["update"]);
    links.link(&id("r0"), &id("c_1")).await.unwrap();
    let err = links.link(&id("r0"), &id("c_2")).await.unwrap_err();
    assert!(matches!(err, Error::LinkFull { max: 2, .. }), "{err:?}");
    links.unlink(&id("r0"), &id("c_0")).await.unwrap();
    assert_eq!(
        readers.get(&id("r0")).await.unwrap().unwrap().course_ids,
        [id("c_1")]
    );

    // verify finds dangling ids; repair drops them.
    db.collection::<BsonDocument>("readers")
        .update_one(
            doc! { "_id": "r0" },
            doc! { "$push": { "courseIds": "c_gone" } },
        )
        .await
        .unwrap();
    let report = links.verify().await.unwrap();
    assert_eq!(report.asymmetric.len(), 1);
    assert_eq!(report.asymmetric[0].kind, AsymmetryKind::RightMissing);
    assert_eq!(links.repair().await.unwrap().removed, 1);
    assert!(links.verify().await.unwrap().is_consistent());
}

/// A small deterministic generator (xorshift), one per task.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_links_and_unlinks_with_transient_failures_stay_symmetric_and_bounded() {
    let _turn = FAILPOINT.lock().await;
    let app = "m2m_concurrent";
    let (client, log) = named_client(app).await;
    let db = support::fresh_db(&client, "m2m_concurrent").await;
    let (pupils, classes) = small_school(&db).await;
    let links = Links::new(&db, Pupil::FIELDS.class_ids);

    // Arms a transient failpoint (3 failures) now and then while the tasks run.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let armer = {
        let (client, stop) = (client.clone(), stop.clone());
        tokio::spawn(async move {
            let mut armed = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let commands = if armed % 2 == 0 {
                    vec!["update"]
                } else {
                    vec!["update", "commitTransaction"]
                };
                failpoint::conflict(&client, app, 3, &commands).await;
                armed += 1;
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                failpoint::off(&client).await;
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            armed
        })
    };

    let tasks: Vec<_> = (0..8u64)
        .map(|t| {
            let links = links.clone();
            tokio::spawn(async move {
                let mut rng =
                    Rng(0x9E37_79B9_7F4A_7C15 ^ (t + 1).wrapping_mul(0x2545_F491_4F6C_DD1D));
                let (mut ok, mut full, mut gave_up) = (0, 0, 0);
                for _ in 0..200 {
                    let p = format!("p{}", rng.next(10));
                    let k = format!("k{}", rng.next(5));
                    let result = if rng.next(3) < 2 {
                        links.link(&p, &k).await
                    } else {
                        links.unlink(&p, &k).await
                    };
                    match result {
                        Ok(()) => ok += 1,
                        Err(Error::LinkFull { .. }) => full += 1,
                        Err(Error::TransactionRetriesExhausted { .. }) => gave_up += 1,
                        Err(e) => panic!("unexpected error: {e}"),
                    }
                }
                (ok, full, gave_up)
            })
        })
        .collect();
    let (mut ok, mut full, mut gave_up) = (0, 0, 0);
    for task in tasks {
        let (o, f, g) = task.await.unwrap();
        ok += o;
        full += f;
        gave_up += g;
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let armed = armer.await.unwrap();
    failpoint::off(&client).await;
    // The transient failures retried: those the failpoint injected, and
    // the write conflicts between the tasks.
    let (injected, conflicts) = log
        .failures()
        .iter()
        .filter(|f| f.has_label("TransientTransactionError"))
        .fold((0, 0), |(injected, conflicts), f| {
            if f.to_string().contains("failCommand") {
                (injected + 1, conflicts)
            } else {
                (injected, conflicts + 1)
            }
        });
    println!(
        "ok={ok} full={full} gave_up={gave_up}; failpoint armed {armed} times, \
         {injected} injected transient failures and {conflicts} write conflicts retried"
    );
    assert_eq!(ok + full + gave_up, 1600);
    assert!(injected > 0, "the failpoint fired");

    let report = links.verify().await.unwrap();
    assert!(report.asymmetric.is_empty(), "{report:?}");
    assert!(report.over_max.is_empty(), "{report:?}");
    for p in pupils.find(doc! {}).scan().all().await.unwrap() {
        assert!(p.class_ids.len() <= 3, "{p:?}");
    }
    for k in classes.find(doc! {}).scan().all().await.unwrap() {
        assert!(k.pupil_ids.len() <= 6, "{k:?}");
    }
}

#[tokio::test]
async fn on_a_standalone_the_two_sided_helpers_refuse_and_write_nothing() {
    let server = Server::start(ServerOptions {
        standalone: true,
        ..Default::default()
    })
    .unwrap();
    let client = Client::with_uri_str(server.uri()).await.unwrap();
    let db = client.database("standalone");
    // Setup refuses this schema on a standalone, so the documents are inserted as they are.
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    students.insert(&Student::new("s1", "Linus")).await.unwrap();
    courses
        .insert(&Course::new("c1", "Databases"))
        .await
        .unwrap();

    let links = Links::new(&db, Student::FIELDS.course_ids);
    let err = links.link(&id("s1"), &id("c1")).await.unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(err, Error::TransactionsUnsupported { .. }),
        "{message}"
    );
    assert!(message.contains("replica set"), "{message}");
    assert!(message.contains("Student"), "{message}");
    assert!(
        students
            .get(&id("s1"))
            .await
            .unwrap()
            .unwrap()
            .course_ids
            .is_empty(),
        "nothing written"
    );
    assert!(
        courses
            .get(&id("c1"))
            .await
            .unwrap()
            .unwrap()
            .student_ids
            .is_empty(),
        "nothing written"
    );

    let err = links.unlink(&id("s1"), &id("c1")).await.unwrap_err();
    assert!(
        matches!(err, Error::TransactionsUnsupported { .. }),
        "{err}"
    );

    // The cascading delete refuses too, before deleting.
    let err = students.delete(&id("s1")).await.unwrap_err();
    assert!(
        matches!(err, Error::TransactionsUnsupported { .. }),
        "{err}"
    );
    assert!(
        students.get(&id("s1")).await.unwrap().is_some(),
        "not deleted"
    );

    // Plain single-document helpers work on a standalone.
    assert!(students
        .update(&id("s1"), Student::FIELDS.name.set(&"L".to_owned()))
        .await
        .unwrap());
}
