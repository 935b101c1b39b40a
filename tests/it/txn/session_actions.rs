//! One API shape for sessions: every helper returns an action that is
//! awaited directly, names its collection and operation, sends nothing until
//! it is awaited, and takes the caller's session with `.session(&mut s)`,
//! joining the transaction in progress on it (`Links::verify` and
//! `Links::repair` too).

use crate::models;
use crate::support;

use std::sync::Mutex;

use models::{Course, Post, Student, User};
use schema_core::prelude::*;
use schema_core::transaction;
use schema_core::Action;
use schema_core::{AsymmetryKind, Error, RepairReport, VerifyReport};

fn s(v: &str) -> String {
    v.to_owned()
}

fn post(id: &str) -> Post {
    Post {
        id: s(id),
        author_id: s("ada"),
        title: s(id),
        tags: vec![],
        at: bson::DateTime::from_millis(1),
    }
}

#[tokio::test]
async fn an_action_names_its_collection_and_operation_and_sends_nothing_until_awaited() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "action_names").await;
    models::school::schema().sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);
    let links = Links::new(&db, Student::FIELDS.course_ids);
    let p1 = post("p1");
    let (st, co) = (s("s1"), s("c1"));

    log.clear();
    let insert: Action<'_, ()> = posts.insert(&p1);
    assert_eq!(
        (insert.collection(), insert.operation()),
        ("posts", "insert")
    );
    assert!(!insert.has_session());
    let push = posts.embed(Post::FIELDS.tags).push(&p1.id, &p1.title);
    assert_eq!((push.collection(), push.operation()), ("posts", "push"));
    let link = links.link(&st, &co);
    assert_eq!((link.collection(), link.operation()), ("students", "link"));
    let page = posts.children(Post::FIELDS.author_id, &p1.author_id).page();
    assert_eq!((page.collection(), page.operation()), ("posts", "page"));
    let verify = links.verify();
    assert_eq!(
        (verify.collection(), verify.operation()),
        ("students", "verify")
    );
    let repair = links.repair();
    assert_eq!(
        (repair.collection(), repair.operation()),
        ("students", "repair")
    );
    drop((push, link, page, verify, repair));
    assert!(log.operations().is_empty(), "{:?}", log.operations());

    insert.await.unwrap();
    assert_eq!(log.operations(), ["insert"]);
    let mut session = client.start_session().await.unwrap();
    let get = posts.get(&p1.id).session(&mut session);
    assert!(get.has_session());
    assert_eq!(get.await.unwrap(), Some(p1.clone()));
}

#[tokio::test]
async fn every_helper_given_a_session_joins_the_callers_transaction() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "action_session").await;
    let through = Through::<User, Course>::new(&db, "enrolments", "userId", "courseId");
    let mut schema = models::school::schema().with::<Post>().with::<User>();
    schema = schema.with_info(through.model_info());
    schema.sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    let links = Links::new(&db, Student::FIELDS.course_ids);
    posts.insert(&post("p1")).await.unwrap();
    students.insert(&Student::new("s1", "Ann")).await.unwrap();
    courses.insert(&Course::new("c1", "Art")).await.unwrap();

    // Inside one transaction: each helper sees what the others wrote.
    let mut session = client.start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    let (p1, p2, st, co, u1) = (s("p1"), post("p2"), s("s1"), s("c1"), s("u1"));
    posts.insert(&p2).session(&mut session).await.unwrap();
    let tags = posts.embed(Post::FIELDS.tags);
    tags.push(&p1, &s("t")).session(&mut session).await.unwrap();
    posts
        .update(&p1, Post::FIELDS.title.set(&s("Uno")))
        .session(&mut session)
        .await
        .unwrap();
    links.link(&st, &co).session(&mut session).await.unwrap();
    through.link(&u1, &co).session(&mut session).await.unwrap();
    assert!(courses.delete(&co).session(&mut session).await.unwrap());
    let seen = (
        posts
            .count(bson::doc! {})
            .scan()
            .session(&mut session)
            .await
            .unwrap(),
        posts.get(&p1).session(&mut session).await.unwrap().unwrap(),
        students
            .get(&st)
            .session(&mut session)
            .await
            .unwrap()
            .unwrap(),
        through
            .rights_of(&u1, None, 10)
            .session(&mut session)
            .await
            .unwrap(),
    );
    assert_eq!(seen.0, 2);
    assert_eq!((seen.1.title.as_str(), seen.1.tags.len()), ("Uno", 1));
    // The link wrote the student's side; the cascading delete of the course,
    // in the same transaction, pulled it again.
    assert!(seen.2.course_ids.is_empty(), "{:?}", seen.2.course_ids);
    assert_eq!(seen.3, [s("c1")]);
    // Outside the transaction: none of it yet.
    assert_eq!(posts.count(bson::doc! {}).scan().await.unwrap(), 1);
    assert!(courses.get(&co).await.unwrap().is_some());

    // Aborted: nothing any helper did is kept, the two-sided link and the
    // cascading delete (which joined rather than committed on their own)
    // included.
    session.abort_transaction().await.unwrap();
    let p1_now = posts.get(&p1).await.unwrap().unwrap();
    assert_eq!((p1_now.title.as_str(), p1_now.tags.len()), ("p1", 0));
    assert!(posts.get(&p2.id).await.unwrap().is_none());
    assert_eq!(
        courses.get(&co).await.unwrap(),
        Some(Course::new("c1", "Art"))
    );
    assert_eq!(
        students.get(&st).await.unwrap(),
        Some(Student::new("s1", "Ann"))
    );
    assert!(!through.contains(&u1, &co).await.unwrap());

    // Grouped in one transaction: committed together.
    transaction(&client)
        .run(async |session| {
            posts.insert(&post("p3")).session(&mut *session).await?;
            links
                .link(&"s1".to_owned(), &"c1".to_owned())
                .session(session)
                .await
        })
        .await
        .unwrap();
    assert!(posts.get(&s("p3")).await.unwrap().is_some());
    assert_eq!(
        students.get(&st).await.unwrap().unwrap().course_ids,
        [s("c1")]
    );
}

#[tokio::test]
async fn verify_and_repair_run_in_the_callers_transaction() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "links_session").await;
    models::school::schema().sync(&db).await.unwrap();
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    let links = Links::new(&db, Student::FIELDS.course_ids);
    for id in ["s1", "s2"] {
        students.insert(&Student::new(id, id)).await.unwrap();
    }
    for id in ["c1", "c2"] {
        courses.insert(&Course::new(id, id)).await.unwrap();
    }
    // A half-edge written around the helpers: s1 lists c1, c1 not s1.
    let raw_students = db.collection::<bson::Document>("students");
    raw_students
        .update_one(
            bson::doc! { "_id": "s1" },
            bson::doc! { "$addToSet": { "courseIds": "c1" } },
        )
        .await
        .unwrap();
    let half = |report: &VerifyReport| -> Vec<(String, String, AsymmetryKind)> {
        report
            .asymmetric
            .iter()
            .map(|a| {
                let id = |b: &bson::Bson| b.as_str().unwrap().to_owned();
                (id(&a.left), id(&a.right), a.kind)
            })
            .collect()
    };
    let broken = vec![(s("s1"), s("c1"), AsymmetryKind::MissingOnRight)];
    assert_eq!(half(&links.verify().await.unwrap()), broken);

    // Repaired in a transaction that is then aborted: nothing is kept.
    let seen: Mutex<Option<(RepairReport, VerifyReport)>> = Mutex::new(None);
    let aborted = transaction(&client)
        .run(async |session| {
            let repaired = links.repair().session(&mut *session).await?;
            let after = links.verify().session(session).await?;
            *seen.lock().unwrap() = Some((repaired, after));
            Err::<(), _>(Error::Model("abort on purpose".into()))
        })
        .await;
    assert!(
        matches!(&aborted, Err(Error::Model(m)) if m == "abort on purpose"),
        "{aborted:?}"
    );
    let (repaired, after) = seen.lock().unwrap().take().expect("the body ran");
    // In the transaction: completed, and its own verify saw the fix.
    assert_eq!((repaired.completed, repaired.removed), (1, 0));
    assert!(after.is_consistent(), "{after:?}");
    // After the abort: the half-edge is back, the course side untouched.
    assert_eq!(half(&links.verify().await.unwrap()), broken);
    assert_eq!(
        courses.get(&s("c1")).await.unwrap(),
        Some(Course::new("c1", "c1"))
    );

    // verify in a session sees that session's uncommitted writes; outside
    // it, they do not exist yet.
    let mut session = client.start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    raw_students
        .update_one(
            bson::doc! { "_id": "s2" },
            bson::doc! { "$addToSet": { "courseIds": "c2" } },
        )
        .session(&mut session)
        .await
        .unwrap();
    let inside = links.verify().session(&mut session).await.unwrap();
    let mut both = broken.clone();
    both.push((s("s2"), s("c2"), AsymmetryKind::MissingOnRight));
    let mut inside_halves = half(&inside);
    inside_halves.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    assert_eq!(inside_halves, both);
    assert_eq!(half(&links.verify().await.unwrap()), broken);
    // Repaired in that session and committed: both halves completed.
    let repaired = links.repair().session(&mut session).await.unwrap();
    assert_eq!((repaired.completed, repaired.removed), (2, 0));
    session.commit_transaction().await.unwrap();
    let report = links.verify().await.unwrap();
    assert!(report.is_consistent(), "{report:?}");
    assert_eq!(report.edges, 2);
    assert_eq!(
        courses.get(&s("c2")).await.unwrap().unwrap().student_ids,
        [s("s2")]
    );
}
