//! Each relationship helper side by side with the same operation written by
//! hand with the `mongodb` driver, interleaved in one run (alternating which
//! goes first). Prints the median latency of each, the ratio helper/raw, and
//! the server commands each sends per operation.
//!
//! Run: `cargo bench --bench helpers` (about half a minute). `ITERATIONS=N`
//! changes the number of runs of each (default 200).

use std::time::{Duration, Instant};

use bson::{doc, DateTime, Document as BsonDocument};
use futures_util::TryStreamExt;
use mongodb::{Client, Collection, Database};
use schema_core::prelude::*;
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

impl Side {
    fn median(&mut self) -> Duration {
        self.times.sort();
        self.times[self.times.len() / 2]
    }
}

/// Runs `helper` and `raw` alternately `n` times each (iteration `i` is
/// passed to both) and prints one row.
async fn compare<H, R, FH, FR>(name: &str, n: usize, log: &CommandLog, mut helper: H, mut raw: R)
where
    H: FnMut(usize) -> FH,
    R: FnMut(usize) -> FR,
    FH: std::future::Future<Output = ()>,
    FR: std::future::Future<Output = ()>,
{
    let (mut h, mut r) = (Side::default(), Side::default());
    // Warm-up (connections, caches, the helpers' one-time topology check).
    helper(n).await;
    raw(n).await;
    log.clear();
    for i in 0..n {
        for first in [i % 2 == 0, i % 2 != 0] {
            let (side, is_helper) = if first {
                (&mut h, true)
            } else {
                (&mut r, false)
            };
            let start = Instant::now();
            if is_helper {
                helper(i).await;
            } else {
                raw(i).await;
            }
            side.times.push(start.elapsed());
            side.commands += log.take().len() as u64;
        }
    }
    let (mh, mr) = (h.median(), r.median());
    println!(
        "{name:<28} {:>10.1} {:>10.1} {:>8.3} {:>9.1} {:>9.1}",
        mh.as_secs_f64() * 1e6,
        mr.as_secs_f64() * 1e6,
        mh.as_secs_f64() / mr.as_secs_f64(),
        h.commands as f64 / n as f64,
        r.commands as f64 / n as f64,
    );
}

async fn seed(db: &Database) {
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
    for i in 0..4 {
        db.collection::<Student>("students")
            .insert_one(Student {
                id: format!("s{i}"),
                course_ids: Vec::new(),
            })
            .await
            .expect("student");
        db.collection::<Course>("courses")
            .insert_one(Course {
                id: format!("c{i}"),
                student_ids: Vec::new(),
            })
            .await
            .expect("course");
    }
}

/// The hand-written two-sided link: both `$addToSet`s (bounded, as the
/// helper's) in one transaction.
async fn raw_link(client: &Client, db: &Database, sid: &str, cid: &str, pull: bool) {
    let students = db.collection::<BsonDocument>("students");
    let courses = db.collection::<BsonDocument>("courses");
    let mut session = client.start_session().await.expect("session");
    session.start_transaction().await.expect("start");
    if pull {
        students
            .update_one(doc! { "_id": sid }, doc! { "$pull": { "courseIds": cid } })
            .session(&mut session)
            .await
            .expect("pull");
        courses
            .update_one(doc! { "_id": cid }, doc! { "$pull": { "studentIds": sid } })
            .session(&mut session)
            .await
            .expect("pull");
    } else {
        let r = students
            .update_one(
                doc! { "_id": sid, "$or": [ { "courseIds": cid }, { "courseIds.49": { "$exists": false } } ] },
                doc! { "$addToSet": { "courseIds": cid } },
            )
            .session(&mut session)
            .await
            .expect("add");
        assert_eq!(r.matched_count, 1);
        let r = courses
            .update_one(
                doc! { "_id": cid, "$or": [ { "studentIds": sid }, { "studentIds.499": { "$exists": false } } ] },
                doc! { "$addToSet": { "studentIds": sid } },
            )
            .session(&mut session)
            .await
            .expect("add");
        assert_eq!(r.matched_count, 1);
    }
    session.commit_transaction().await.expect("commit");
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::var("ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let (client, log) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database("bench_helpers");
    db.drop().await.expect("drop");
    seed(&db).await;

    let posts = Repo::<Post>::new(&db);
    let users = Repo::<User>::new(&db);
    let raw_posts: Collection<Post> = db.collection("posts");
    let raw_users: Collection<User> = db.collection("users");
    let raw_boards = db.collection::<BsonDocument>("boards");
    let links = Links::new(&db, Student::FIELDS.course_ids);

    println!("{n} runs of each, interleaved; medians in microseconds; commands per operation");
    println!(
        "{:<28} {:>10} {:>10} {:>8} {:>9} {:>9}",
        "operation", "helper", "raw", "ratio", "cmd:help", "cmd:raw"
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

    let links = &links;
    compare(
        "two-sided link + unlink",
        n / 2,
        &log,
        |i| async move {
            let (s, c) = (format!("s{}", i % 2), format!("c{}", i % 2));
            links.link(&s, &c).await.expect("link");
            links.unlink(&s, &c).await.expect("unlink");
        },
        |i| {
            let (client, db) = (&client, &db);
            async move {
                let (s, c) = (format!("s{}", 2 + i % 2), format!("c{}", 2 + i % 2));
                raw_link(client, db, &s, &c, false).await;
                raw_link(client, db, &s, &c, true).await;
            }
        },
    )
    .await;

    let edges = Through::<User, Course>::new(&db, "enrollments", "userId", "courseId");
    let mut schema = Schema::new();
    schema.push(edges.model_info());
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

    let plan = posts
        .children(Post::FIELDS.author_id, &"user_42".to_owned())
        .page_size(10)
        .explain()
        .await
        .expect("explain");
    println!("\npage 1 of user_42's posts: {plan}");
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
