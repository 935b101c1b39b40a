//! Each relationship helper side by side with the same operation written by
//! hand with the `mongodb` driver, interleaved in one run (alternating which
//! goes first in each round). Prints, per operation, the median latency of
//! each side, the median of the per-round ratios helper/raw with their
//! p10-p90 range, and every command each side sends per operation (all
//! commands the driver reports, none left out by name). A first line gives
//! the one-time costs of a new `Repo` and a new `Links` (their `listIndexes`
//! and `hello`), which the rows leave out.
//!
//! Run: `cargo bench --bench helpers`. `ITERATIONS=N` changes the number of
//! rounds of each row (default 200); `ROWS=page,count` runs only the rows
//! whose names contain one of the words; `ONLY=helper` or `ONLY=raw` runs
//! one side alone (no ratio), for counting the client's instructions under
//! callgrind (`--collect-atstart=no --toggle-collect='*Measured*poll*'`:
//! the rows' operations and nothing else). `ONLY=calibrate` runs the raw
//! side in both columns: the ratio the bench reports for two equal sides,
//! its own bias and noise.

use std::time::{Duration, Instant};

use bson::{doc, DateTime, Document as BsonDocument};
use futures_util::TryStreamExt;
use mongodb::{Client, Collection, Database};
use schema_core::prelude::*;
use schema_core::Cursor;
use schema_core::Schema;
use schema_core::{helper_options, transaction};
use schema_testkit::stats::{self, Spread};
use schema_testkit::CommandLog;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "users")]
struct User {
    #[serde(rename = "_id")]
    id: String,
    email: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = User, sort(at = desc))]
    author_id: String,
    title: String,
    #[embed(max = 10)]
    tags: Vec<String>,
    at: DateTime,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "boards")]
struct Board {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 100000)]
    items: Vec<i64>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "students")]
struct Student {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 50)]
    course_ids: Vec<String>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
#[document(collection = "courses")]
struct Course {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Student, inverse = course_ids, max = 500)]
    student_ids: Vec<String>,
}

/// Times of one side and the commands it sent.
#[derive(Default)]
struct Side {
    times: Vec<Duration>,
    commands: u64,
}

/// An operation of a row: its `poll` is never inlined, so callgrind can count
/// the operations' instructions alone (`--toggle-collect='*Measured*poll*'`).
/// (Boxed, so it is `Unpin`: the same one allocation on both sides.)
struct Measured<F>(std::pin::Pin<Box<F>>);

impl<F: std::future::Future> std::future::Future for Measured<F> {
    type Output = F::Output;

    #[inline(never)]
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        self.0.as_mut().poll(cx)
    }
}

/// Runs `helper` and `raw` in `n` rounds (iteration `i` is passed to both;
/// which goes first alternates) and prints one row. One untimed call of
/// each comes first (connections, caches, first-use checks); its commands
/// are not counted.
async fn compare<H, R, FH, FR>(name: &str, n: usize, log: &CommandLog, mut helper: H, mut raw: R)
where
    H: FnMut(usize) -> FH,
    R: FnMut(usize) -> FR,
    FH: std::future::Future<Output = ()>,
    FR: std::future::Future<Output = ()>,
{
    let rows = std::env::var("ROWS").unwrap_or_default();
    if !rows.is_empty() && !rows.split(',').any(|word| name.contains(word.trim())) {
        return;
    }
    let only = std::env::var("ONLY").unwrap_or_default();
    let calibrate = only == "calibrate";
    let sides: &[bool] = match only.as_str() {
        "helper" => &[true],
        "raw" => &[false],
        _ => &[true, false],
    };
    let (mut h, mut r) = (Side::default(), Side::default());
    for &helper_turn in sides {
        if helper_turn {
            helper(n).await;
        } else {
            raw(n).await;
        }
    }
    log.clear();
    for i in 0..n {
        let first = sides[i % sides.len()];
        for helper_turn in [first, !first].into_iter().take(sides.len()) {
            let start = Instant::now();
            if helper_turn && !calibrate {
                Measured(Box::pin(helper(i))).await;
            } else {
                Measured(Box::pin(raw(i))).await;
            }
            let side = if helper_turn { &mut h } else { &mut r };
            side.times.push(start.elapsed());
            side.commands += log.take().len() as u64;
        }
    }
    let us = |times: &[Duration]| stats::median(times).as_secs_f64() * 1e6;
    if sides.len() == 1 {
        let (side, kept) = if sides[0] {
            ("helper", &h)
        } else {
            ("raw", &r)
        };
        println!("{name:<30} {side} alone: {:>9.1} us", us(&kept.times));
        return;
    }
    let ratio = Spread::of_ratios(&h.times, &r.times);
    println!(
        "{name:<30} {:>9.1} {:>9.1} {:>7.3} {:>11} {:>8.1} {:>8.1}",
        us(&h.times),
        us(&r.times),
        ratio.median,
        ratio.range(),
        h.commands as f64 / n as f64,
        r.commands as f64 / n as f64,
    );
}

async fn seed(db: &Database, rounds: usize) {
    Schema::new()
        .with::<User>()
        .with::<Post>()
        .with::<Board>()
        .with::<Student>()
        .with::<Course>()
        .sync(db)
        .await
        .expect("setup");
    let users: Vec<User> = (0..1000)
        .map(|i| User {
            id: format!("user_{i}"),
            email: format!("u{i}@example.test"),
        })
        .collect();
    Repo::<User>::new(db)
        .insert_many(&users)
        .await
        .expect("users");
    let posts: Vec<Post> = (0..20_000)
        .map(|i| Post {
            id: format!("post_{i}"),
            author_id: format!("user_{}", i % 1000),
            title: format!("Post {i}"),
            tags: vec!["mongodb".into(), "modeling".into()],
            at: DateTime::from_millis(1_700_000_000_000 + i as i64 * 60_000),
        })
        .collect();
    for chunk in posts.chunks(5000) {
        Repo::<Post>::new(db)
            .insert_many(chunk)
            .await
            .expect("posts");
    }
    let boards = db.collection::<Board>("boards");
    for id in ["helper", "raw"] {
        boards
            .insert_one(Board {
                id: id.into(),
                items: Vec::new(),
            })
            .await
            .expect("board");
    }
    // One student per round and side (and one for the first-use line), 4
    // courses per side (the helper's `h..`, the raw side's `r..`).
    let students: Vec<Student> = ["h", "r"]
        .iter()
        .flat_map(|side| (0..=rounds + 1).map(move |i| format!("{side}s{i}")))
        .chain(["first".to_owned()])
        .map(|id| Student {
            id,
            course_ids: Vec::new(),
        })
        .collect();
    Repo::<Student>::new(db)
        .insert_many(&students)
        .await
        .expect("students");
    let courses: Vec<Course> = ["h", "r"]
        .iter()
        .flat_map(|side| (0..COURSES).map(move |i| format!("{side}c{i}")))
        .map(|id| Course {
            id,
            student_ids: Vec::new(),
        })
        .collect();
    Repo::<Course>::new(db)
        .insert_many(&courses)
        .await
        .expect("courses");
}

/// Courses per side in the link rows: each gets `rounds / COURSES` students.
const COURSES: usize = 4;

/// The student and course of round `i` on `side` (`"h"` or `"r"`).
fn pair(side: &str, i: usize) -> (String, String) {
    (format!("{side}s{i}"), format!("{side}c{}", i % COURSES))
}

/// The hand-written two-sided link (or unlink, with `pull`): both
/// `$addToSet`s, bounded as the helper's (or both `$pull`s), in a transaction
/// run by the same runner as the helper's, with the same retry policy and
/// commit write concern (`{w: "majority", j: true}`).
async fn raw_link(client: &Client, db: &Database, sid: &str, cid: &str, pull: bool) {
    let students = db.collection::<BsonDocument>("students");
    let courses = db.collection::<BsonDocument>("courses");
    let (student, course) = if pull {
        (
            (doc! { "_id": sid }, doc! { "$pull": { "courseIds": cid } }),
            (doc! { "_id": cid }, doc! { "$pull": { "studentIds": sid } }),
        )
    } else {
        (
            (
                doc! { "_id": sid, "$or": [ { "courseIds": cid }, { "courseIds.49": { "$exists": false } } ] },
                doc! { "$addToSet": { "courseIds": cid } },
            ),
            (
                doc! { "_id": cid, "$or": [ { "studentIds": sid }, { "studentIds.499": { "$exists": false } } ] },
                doc! { "$addToSet": { "studentIds": sid } },
            ),
        )
    };
    transaction(client)
        .options(helper_options())
        .run(async |session| {
            let r = students
                .update_one(student.0.clone(), student.1.clone())
                .session(&mut *session)
                .await?;
            assert_eq!(r.matched_count, 1, "student {student:?}");
            let r = courses
                .update_one(course.0.clone(), course.1.clone())
                .session(&mut *session)
                .await?;
            assert_eq!(r.matched_count, 1, "course {course:?}");
            Ok(())
        })
        .await
        .expect("raw link");
}

/// The commands `op` sends, with its time: for the first-use line.
async fn first_use<F: std::future::Future<Output = ()>>(log: &CommandLog, op: F) -> String {
    log.clear();
    let start = Instant::now();
    op.await;
    let took = start.elapsed();
    format!(
        "{} ({:.0} us)",
        log.take().join(", "),
        took.as_secs_f64() * 1e6
    )
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::var("ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
        .max(1);
    let (client, log) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database("bench_helpers");
    db.drop().await.expect("drop");
    seed(&db, n).await;

    let posts = Repo::<Post>::new(&db);
    let users = Repo::<User>::new(&db);
    let raw_posts: Collection<Post> = db.collection("posts");
    let raw_users: Collection<User> = db.collection("users");
    let raw_boards = db.collection::<BsonDocument>("boards");
    let links = Links::new(&db, Student::FIELDS.course_ids);

    // What a new `Repo` and a new `Links` send once, on their first page and
    // their first link; the rows below reuse theirs, as an application does.
    let page_1 = first_use(&log, async {
        let fresh = Repo::<Post>::new(&db);
        let page = fresh
            .children(Post::FIELDS.author_id, &"user_1".to_owned())
            .page_size(10)
            .page()
            .await
            .expect("page");
        assert_eq!(page.items.len(), 10);
    })
    .await;
    let first_link = first_use(&log, async {
        Links::new(&db, Student::FIELDS.course_ids)
            .link(&"first".to_owned(), &"hc0".to_owned())
            .await
            .expect("link");
    })
    .await;
    println!(
        "first use, once per new instance (not in the rows): Repo page 1: {page_1}; \
         Links link: {first_link}"
    );

    println!(
        "{n} rounds of each, interleaved; medians in microseconds; ratio: median of the \
         per-round ratios helper/raw, with their p10-p90; every command sent per operation"
    );
    println!(
        "{:<30} {:>9} {:>9} {:>7} {:>11} {:>8} {:>8}",
        "operation", "helper", "raw", "ratio", "p10-p90", "cmd:help", "cmd:raw"
    );

    compare(
        "insert",
        n,
        &log,
        |i| {
            let posts = &posts;
            async move {
                posts
                    .insert(&new_post(format!("h{i}")))
                    .await
                    .expect("insert");
            }
        },
        |i| {
            let raw = &raw_posts;
            async move {
                raw.insert_one(new_post(format!("r{i}")))
                    .await
                    .expect("insert");
            }
        },
    )
    .await;

    compare(
        "get by id",
        n,
        &log,
        |i| {
            let posts = &posts;
            async move {
                let id = format!("post_{}", i * 7 % 20_000);
                posts.get(&id).await.expect("get").expect("found");
            }
        },
        |i| {
            let raw = &raw_posts;
            async move {
                let id = format!("post_{}", i * 7 % 20_000);
                raw.find_one(doc! { "_id": id })
                    .await
                    .expect("get")
                    .expect("found");
            }
        },
    )
    .await;

    compare(
        "bounded push",
        n,
        &log,
        |i| {
            let posts = &posts;
            let boards = Repo::<Board>::new(posts.database());
            async move {
                boards
                    .embed(Board::FIELDS.items)
                    .push(&"helper".to_owned(), &(i as i64))
                    .await
                    .expect("push");
            }
        },
        |i| {
            let raw = &raw_boards;
            async move {
                let r = raw
                    .update_one(
                        doc! { "_id": "raw", "items.99999": { "$exists": false } },
                        doc! { "$push": { "items": i as i64 } },
                    )
                    .await
                    .expect("push");
                assert_eq!(r.matched_count, 1);
            }
        },
    )
    .await;

    compare(
        "page of 10 (keyset, page 1)",
        n,
        &log,
        |i| {
            let posts = &posts;
            async move {
                let author = format!("user_{}", i % 1000);
                let page = posts
                    .children(Post::FIELDS.author_id, &author)
                    .page_size(10)
                    .page()
                    .await
                    .expect("page");
                assert_eq!(page.items.len(), 10);
            }
        },
        |i| {
            let raw = &raw_posts;
            async move {
                let author = format!("user_{}", i % 1000);
                let page: Vec<Post> = raw
                    .find(doc! { "authorId": author })
                    .sort(doc! { "at": -1, "_id": -1 })
                    .limit(10)
                    .batch_size(10)
                    .await
                    .expect("find")
                    .try_collect()
                    .await
                    .expect("page");
                assert_eq!(page.len(), 10);
            }
        },
    )
    .await;

    // Page 2 of each author: the cursor of page 1, from each side's own page 1.
    let authors = n.min(1000);
    let mut cursors: Vec<Cursor> = Vec::with_capacity(authors);
    let mut raw_cursors: Vec<(DateTime, String)> = Vec::with_capacity(authors);
    for a in 0..authors {
        let author = format!("user_{a}");
        let page = posts
            .children(Post::FIELDS.author_id, &author)
            .page_size(10)
            .page()
            .await
            .expect("page");
        cursors.push(page.next.expect("a second page"));
        let last = page.items.last().expect("a full page");
        raw_cursors.push((last.at, last.id.clone()));
    }
    compare(
        "page of 10 (keyset, page 2)",
        n,
        &log,
        |i| {
            let (posts, cursors) = (&posts, &cursors);
            async move {
                let author = format!("user_{}", i % authors);
                let page = posts
                    .children(Post::FIELDS.author_id, &author)
                    .page_size(10)
                    .after(cursors[i % authors].clone())
                    .page()
                    .await
                    .expect("page");
                assert_eq!(page.items.len(), 10);
            }
        },
        |i| {
            let (raw, raw_cursors) = (&raw_posts, &raw_cursors);
            async move {
                let author = format!("user_{}", i % authors);
                let (at, id) = &raw_cursors[i % authors];
                let page: Vec<Post> = raw
                    .find(doc! { "$and": [
                        { "authorId": author, "at": { "$lte": at } },
                        { "$or": [ { "at": { "$lt": at } }, { "_id": { "$lt": id } } ] },
                    ] })
                    .sort(doc! { "at": -1, "_id": -1 })
                    .limit(10)
                    .batch_size(10)
                    .await
                    .expect("find")
                    .try_collect()
                    .await
                    .expect("page");
                assert_eq!(page.len(), 10);
            }
        },
    )
    .await;

    compare(
        "count children",
        n,
        &log,
        |i| {
            let posts = &posts;
            async move {
                let author = format!("user_{}", i % 1000);
                let count = posts
                    .children(Post::FIELDS.author_id, &author)
                    .count()
                    .await
                    .expect("count");
                assert_eq!(count, 20);
            }
        },
        |i| {
            let raw = &raw_posts;
            async move {
                let author = format!("user_{}", i % 1000);
                let count = raw
                    .count_documents(doc! { "authorId": author })
                    .await
                    .expect("count");
                assert_eq!(count, 20);
            }
        },
    )
    .await;

    let page: Vec<Post> = (0..10).map(|i| new_post_by(i, i * 37 % 1000)).collect();
    compare(
        "parents of a page (10)",
        n,
        &log,
        |_| {
            let (users, page) = (&users, &page);
            async move {
                let parents = users
                    .parents_of(Post::FIELDS.author_id, page)
                    .await
                    .expect("parents");
                assert!(parents.iter().all(Option::is_some));
            }
        },
        |_| {
            let (raw, page) = (&raw_users, &page);
            async move {
                let ids: Vec<&str> = page.iter().map(|p| p.author_id.as_str()).collect();
                let parents: Vec<User> = raw
                    .find(doc! { "_id": { "$in": ids } })
                    .await
                    .expect("find")
                    .try_collect()
                    .await
                    .expect("parents");
                assert_eq!(parents.len(), 10);
            }
        },
    )
    .await;

    // Link and unlink, each its own row: round i links (then unlinks) its
    // own student to one of 4 courses, on each side.
    let links = &links;
    for (row, pull) in [("two-sided link", false), ("two-sided unlink", true)] {
        compare(
            row,
            n,
            &log,
            |i| async move {
                let (s, c) = pair("h", i);
                if pull {
                    links.unlink(&s, &c).await.expect("unlink");
                } else {
                    links.link(&s, &c).await.expect("link");
                }
            },
            |i| {
                let (client, db) = (&client, &db);
                async move {
                    let (s, c) = pair("r", i);
                    raw_link(client, db, &s, &c, pull).await;
                }
            },
        )
        .await;
    }
    let report = links.verify().await.expect("verify");
    assert!(report.is_consistent(), "{report:?}");

    let edges = Through::<User, Course>::new(&db, "enrollments", "userId", "courseId");
    let mut schema = Schema::new();
    schema = schema.with_info(edges.model_info());
    schema.sync(&db).await.expect("edge setup");
    let raw_edges = db.collection::<BsonDocument>("enrollments");
    let edges = &edges;
    compare("through link (upsert)", n, &log, |i| async move {
        edges
            .link(&format!("user_{}", i % 50), &format!("h{}", i % 7))
            .await
            .expect("link");
    }, |i| {
        let raw = &raw_edges;
        async move {
            let pair = doc! { "userId": format!("user_{}", i % 50), "courseId": format!("r{}", i % 7) };
            raw.update_one(pair.clone(), doc! { "$setOnInsert": pair })
                .upsert(true)
                .await
                .expect("upsert");
        }
    })
    .await;

    let user_42 = "user_42".to_owned();
    let page_1 = posts
        .children(Post::FIELDS.author_id, &user_42)
        .page_size(10);
    println!(
        "\npage 1 of user_42's posts: {}",
        page_1.explain().await.expect("explain")
    );
    let next = page_1.page().await.expect("page").next.expect("page 2");
    println!(
        "page 2 of user_42's posts: {}",
        page_1.after(next).explain().await.expect("explain")
    );
    db.drop().await.expect("drop");
}

fn new_post(id: String) -> Post {
    Post {
        id,
        author_id: "newcomer".into(),
        title: "New".into(),
        tags: Vec::new(),
        at: DateTime::now(),
    }
}

fn new_post_by(i: usize, author: usize) -> Post {
    Post {
        id: format!("x{i}"),
        author_id: format!("user_{author}"),
        title: String::new(),
        tags: Vec::new(),
        at: DateTime::now(),
    }
}
