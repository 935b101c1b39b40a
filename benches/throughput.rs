//! Two-sided links per second with 1, 4 and 16 concurrent tasks, on disjoint
//! documents (no two tasks touch one document) and on overlapping ones (every
//! link touches one of two hot courses, so transactions conflict and retry),
//! each with the links into one document combined (`Links::with_combining`,
//! the default) and without, the two alternating run after run. Prints, per
//! row, the median links/s over `REPS` runs (default 5) with its p10-p90,
//! the median retries the transaction runner made and commands sent per
//! link, and the ratio combined/alone of the medians. Every run checks with
//! `verify` that each acknowledged link is applied once and the courses stay
//! within their max. Run: `cargo bench --bench throughput` (`LINKS=N` links
//! per run, default 480).

use std::time::Instant;

use mongodb::{Client, Database};
use schema_core::prelude::*;
use schema_core::Schema;
use schema_core::{Links, Repo};
use schema_testkit::stats::Spread;
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

/// What one run measured.
struct Run {
    links_per_s: f64,
    retries: u64,
    commands_per_link: f64,
}

async fn scenario(
    client: &Client,
    db: &Database,
    commands: &CommandLog,
    tasks: usize,
    overlapping: bool,
    combining: bool,
    links: usize,
) -> Run {
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

    let links_helper = Links::new(db, Student::FIELDS.course_ids).with_combining(combining);
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
    assert_eq!(failed, 0, "no link gave up");
    let _ = client;
    Run {
        links_per_s: done as f64 / elapsed.as_secs_f64(),
        retries,
        commands_per_link: sent as f64 / done as f64,
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn describe(runs: &[Run]) -> String {
    let spread = Spread::of(runs.iter().map(|r| r.links_per_s));
    format!(
        "{:>6.0} ({:>11}) {:>5.0} {:>5.2}",
        spread.median,
        spread.range(),
        median(runs.iter().map(|r| r.retries as f64).collect()),
        median(runs.iter().map(|r| r.commands_per_link).collect()),
    )
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

    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5)
        .max(1);
    println!(
        "two-sided links, {links} per run, {reps} runs per row (combined and alone alternating); \
         links/s median (p10-p90), median retries, median commands/link"
    );
    println!(
        "{:>8} {:<11} | {:>6} {:>13} {:>5} {:>5} | {:>6} {:>13} {:>5} {:>5} | {:>8}",
        "tasks",
        "documents",
        "alone",
        "p10-p90",
        "retr",
        "cmds",
        "comb.",
        "p10-p90",
        "retr",
        "cmds",
        "comb/alone"
    );
    for overlapping in [false, true] {
        for tasks in [1, 4, 16] {
            let (mut alone, mut combined) = (Vec::new(), Vec::new());
            for rep in 0..reps {
                for combining in [rep % 2 == 0, rep % 2 != 0] {
                    let run = scenario(
                        &client,
                        &db,
                        &commands,
                        tasks,
                        overlapping,
                        combining,
                        links,
                    )
                    .await;
                    if combining {
                        combined.push(run);
                    } else {
                        alone.push(run);
                    }
                }
            }
            let ratio = Spread::of(combined.iter().map(|r| r.links_per_s)).median
                / Spread::of(alone.iter().map(|r| r.links_per_s)).median;
            println!(
                "{:>8} {:<11} | {} | {} | {:>8.2}",
                tasks,
                if overlapping {
                    "overlapping"
                } else {
                    "disjoint"
                },
                describe(&alone),
                describe(&combined),
                ratio
            );
        }
    }
    db.drop().await.expect("drop");
}
