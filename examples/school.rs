//! Seed 000, many-to-many with id arrays on both sides: `students.courseIds`
//! and `courses.studentIds`. Two plain writes leave them inconsistent when
//! the program crashes between them; the framework writes both in one
//! multi-document transaction, so a link that fails midway changes nothing
//! and a link that succeeds updates both.
//!
//! `cargo run --example school` (uses `MONGODB_URI`, or starts a test server).

mod common;
mod models;

use common::{heading, Result};
use models::school::{Course, Student};
use schema_core::bson::{doc, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::transaction;
use schema_core::Error;

const DATABASE: &str = "seed000_school";

/// What each side records: the student's `courseIds` and the course's `studentIds`.
async fn sides(
    students: &Repo<Student>,
    courses: &Repo<Course>,
    sid: &str,
    cid: &str,
) -> Result<(Vec<String>, Vec<String>)> {
    let s = students.get(&sid.to_owned()).await?.ok_or("no student")?;
    let c = courses.get(&cid.to_owned()).await?.ok_or("no course")?;
    Ok((s.course_ids, c.student_ids))
}

#[tokio::main]
async fn main() -> Result {
    let (client, db) = common::fresh_database(DATABASE).await?;
    common::setup(&db, &models::school::schema()).await?;
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    let links = Links::new(&db, Student::FIELDS.course_ids);

    heading("The seed's data");
    let mut seeded: Vec<Student> = (0..5)
        .map(|i| Student::new(format!("student_{i}"), format!("S{i}")))
        .collect();
    seeded.push(Student::new("student_7", "Linus"));
    students.insert_many(&seeded).await?;
    let mut offered: Vec<Course> = (0..3)
        .map(|i| Course::new(format!("c_{i}"), format!("Course {i}")))
        .collect();
    offered.push(Course::new("c_db", "Database Systems"));
    courses.insert_many(&offered).await?;
    println!(
        "students: {} | courses: {}",
        students.count(Filter::all()).scan().await?,
        courses.count(Filter::all()).scan().await?
    );

    heading("Without a transaction: two plain writes, a crash between them");
    // What the seed's `enroll("student_0", "c_0", failBetween = true)` does,
    // with the driver alone: the student side is written, the course side never.
    let raw = db.collection::<BsonDocument>(Student::COLLECTION);
    raw.update_one(
        doc! { "_id": "student_0" },
        doc! { "$addToSet": { "courseIds": "c_0" } },
    )
    .await?;
    println!("without a transaction: crash between the two writes");
    let (s, c) = sides(&students, &courses, "student_0", "c_0").await?;
    println!("  student side: {s:?} | course side: {c:?} <- inconsistent");
    assert_eq!((s.len(), c.len()), (1, 0));
    let report = links.verify().await?;
    for a in &report.asymmetric {
        println!("  Links::verify: {} -> {}: {:?}", a.left, a.right, a.kind);
    }
    assert!(!report.is_consistent());
    let repaired = links.repair().await?;
    println!(
        "  Links::repair: {} completed, {} removed",
        repaired.completed, repaired.removed
    );
    assert_eq!(repaired.completed, 1);
    let (s, c) = sides(&students, &courses, "student_0", "c_0").await?;
    println!("  student side: {s:?} | course side: {c:?} <- repaired");
    assert_eq!(
        (s, c),
        (vec!["c_0".to_owned()], vec!["student_0".to_owned()])
    );

    heading("With a transaction: the same crash rolls the first write back");
    let crashed = transaction(&client)
        .run(async |session| {
            students
                .update(
                    &"student_1".to_owned(),
                    doc! { "$addToSet": { "courseIds": "c_1" } },
                )
                .session(session)
                .await?;
            Err::<(), _>(Error::Model("crash between the two writes".into()))
        })
        .await;
    let message = crashed.err().ok_or("the body fails")?.to_string();
    println!("with a transaction   : {message}");
    let (s, c) = sides(&students, &courses, "student_1", "c_1").await?;
    println!("  student side: {s:?} | course side: {c:?} <- rolled back, consistent");
    assert!(s.is_empty() && c.is_empty());

    heading("Links::link failing on its second write changes neither side");
    // The student side is written first, then the course side, which does
    // not exist: the helper's transaction is aborted.
    let err = links
        .link(&"student_2".to_owned(), &"c_9".to_owned())
        .await
        .err()
        .ok_or("linking to a missing course fails")?;
    println!("link(student_2, c_9): {err}");
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
    let s = students
        .get(&"student_2".to_owned())
        .await?
        .ok_or("no student_2")?;
    println!(
        "  student side: {:?} <- its write was rolled back",
        s.course_ids
    );
    assert!(s.course_ids.is_empty());

    heading("Links::link that succeeds updates both sides, in one transaction");
    links
        .link(&"student_7".to_owned(), &"c_db".to_owned())
        .await?;
    let s = students
        .get(&"student_7".to_owned())
        .await?
        .ok_or("student_7")?;
    let c = courses.get(&"c_db".to_owned()).await?.ok_or("c_db")?;
    println!("{}", schema_core::bson::serialize_to_document(&s)?);
    println!("{}", schema_core::bson::serialize_to_document(&c)?);
    assert_eq!(s.course_ids, ["c_db"]);
    assert_eq!(c.student_ids, ["student_7"]);
    // A few more enrolments, so that both sides hold several ids.
    for (sid, cid) in [
        ("student_1", "c_1"),
        ("student_1", "c_2"),
        ("student_3", "c_1"),
        ("student_4", "c_db"),
    ] {
        links.link(&sid.to_owned(), &cid.to_owned()).await?;
    }
    links
        .unlink(&"student_1".to_owned(), &"c_2".to_owned())
        .await?;

    heading("Links::verify reads both sides");
    let report = links.verify().await?;
    println!(
        "verify: {} edges, {} asymmetric, {} over their max -> {}",
        report.edges,
        report.asymmetric.len(),
        report.over_max.len(),
        if report.is_consistent() {
            "consistent"
        } else {
            "INCONSISTENT"
        }
    );
    assert!(report.is_consistent(), "{report:?}");
    assert_eq!(report.edges, 5);
    for s in students.find(Filter::all()).scan().all().await? {
        if !s.course_ids.is_empty() {
            println!("  {:10} courseIds: {:?}", s.id, s.course_ids);
        }
    }
    for c in courses.find(Filter::all()).scan().all().await? {
        if !c.student_ids.is_empty() {
            println!("  {:10} studentIds: {:?}", c.id, c.student_ids);
        }
    }
    println!("\nschool: ok");
    Ok(())
}
