//! Two-sided links per second with 1, 4 and 16 concurrent tasks, on disjoint
//! documents (no two tasks touch one document) and on overlapping ones (every
//! link touches one of two hot courses, so transactions conflict and retry).
//! Prints links/s, the retries the transaction runner made, and the commands
//! sent per link. Run: `cargo bench --bench throughput` (`LINKS=N` links per
//! scenario, default 480).

use std::time::Instant;

use mongodb::{Client, Database};
use schema_core::prelude::*;
use schema_core::Schema;
use schema_core::{Links, Repo};
use schema_testkit::CommandLog;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "students")]
struct Student {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 1000)]
    course_ids: Vec<String>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "courses")]
struct Course {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Student, inverse = course_ids, max = 1000)]
    student_ids: Vec<String>,
}

/// Which course link number `i` of task `task` goes to.
fn course_of(overlapping: bool, task: usize, i: usize) -> String {
    if overlapping {
        format!("hot_{}", i % 2)
    } else {
        format!("own_{task}")
    }
}

async fn scenario(
    client: &Client,
    db: &Database,
    commands: &CommandLog,
    tasks: usize,
    overlapping: bool,
    links: usize,
) {
    db.drop().await.expect("drop");
    Schema::new()
        .with::<Student>()
        .with::<Course>()
        .sync(db)
        .await
        .expect("setup");
    let per_task = links / tasks;
    let students: Vec<Student> = (0..tasks * per_task)
        .map(|i| Student {
            id: format!("s{i}"),
            course_ids: vec![],
        })
        .collect();
    let mut course_ids: Vec<String> = (0..tasks).map(|t| course_of(false, t, 0)).collect();
    course_ids.extend((0..2).map(|i| course_of(true, 0, i)));
    let courses: Vec<Course> = course_ids
        .into_iter()
        .map(|id| Course {
            id,
            student_ids: vec![],
        })
        .collect();
    Repo::<Student>::new(db)
        .insert_many(&students)
        .await
        .expect("students");
    Repo::<Course>::new(db)
        .insert_many(&courses)
        .await
        .expect("courses");

    let links_helper = Links::new(db, Student::FIELDS.course_ids);
    // The first link asks the server once whether it runs transactions.
    links_helper.verify().await.expect("verify");
    // The clones the tasks use share the helper's retry count.
    let (retries_before, commands_before) = (links_helper.retries(), commands.count());
    let started = Instant::now();
    let mut handles = Vec::new();
    for task in 0..tasks {
        let links_helper = links_helper.clone();
        handles.push(tokio::spawn(async move {
            let mut failed = 0;
            for i in 0..per_task {
                let student = format!("s{}", task * per_task + i);
                let course = course_of(overlapping, task, i);
                if let Err(e) = links_helper.link(&student, &course).await {
                    eprintln!("link {student} -> {course} failed: {e}");
                    failed += 1;
                }
            }
            failed
        }));
    }
    let mut failed = 0;
    for h in handles {
        failed += h.await.expect("task");
    }
    let elapsed = started.elapsed();
    let done = tasks * per_task - failed;
    let retries = links_helper.retries() - retries_before;
    let sent = commands.count() - commands_before;
    let report = links_helper.verify().await.expect("verify");
    assert!(report.is_consistent(), "{report:?}");
    assert_eq!(report.edges, done, "every acknowledged link applied once");
    println!(
        "  {:>2} tasks  {:<11}  {:>7.0} links/s  {:>5} links  {:>3} gave up  {:>5} retries  {:>5.2} commands/link",
        tasks,
        if overlapping { "overlapping" } else { "disjoint" },
        done as f64 / elapsed.as_secs_f64(),
        done,
        failed,
        retries,
        sent as f64 / done as f64,
    );
    let _ = client;
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let (client, commands) =
        schema_testkit::counting_client_with(|options| options.max_pool_size = Some(32))
            .await
            .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database(&format!("bench_throughput_{}", std::process::id()));
    let links = std::env::var("LINKS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(480);

    println!(
        "two-sided links (update + update + commitTransaction per attempt), {links} per scenario"
    );
    for overlapping in [false, true] {
        for tasks in [1, 4, 16] {
            scenario(&client, &db, &commands, tasks, overlapping, links).await;
        }
    }
    db.drop().await.expect("drop");
}
