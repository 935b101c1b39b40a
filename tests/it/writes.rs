//! Writes against the real server: update_one / update_many with their
//! counts and upsert, delete_many, find_one_and_update (before / after) and
//! find_one_and_delete, insert_many ordered and unordered with a duplicate
//! `_id` in the middle, bounded pushes inside these updates, the
//! two-sided cascade of the deletes, and the index guard on their filters.

use crate::models;
use crate::support;

use bson::Bson;
use models::{Course, Post, Student};
use schema_core::prelude::*;
use schema_core::ReturnDocument;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

/// A page-view counter: the case that sent users to the raw driver.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "counters")]
struct Counter {
    #[serde(rename = "_id")]
    id: String,
    hits: i64,
}

fn counter(id: &str, hits: i64) -> Counter {
    Counter {
        id: id.to_owned(),
        hits,
    }
}

fn s(v: &str) -> String {
    v.to_owned()
}

fn post(id: &str, author: &str, title: &str) -> Post {
    Post {
        id: s(id),
        author_id: s(author),
        title: s(title),
        tags: vec![],
        at: bson::DateTime::from_millis(1),
    }
}

async fn counters_db(test: &str) -> (mongodb::Client, mongodb::Database, Repo<Counter>) {
    let client = support::client().await;
    let db = support::fresh_db(&client, test).await;
    Schema::new().with::<Counter>().sync(&db).await.unwrap();
    let repo = Repo::<Counter>::new(&db);
    (client, db, repo)
}

#[tokio::test]
async fn update_many_and_delete_many_report_what_they_did() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "update_many").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);
    let f = Post::FIELDS;
    posts
        .insert_many(&[
            post("p1", "ada", "T"),
            post("p2", "ada", "Two"),
            post("p3", "ada", "Three"),
            post("p4", "bob", "Four"),
            post("p5", "bob", "Five"),
        ])
        .await
        .unwrap();

    // p1 already has the title: matched, not modified.
    let r = posts
        .update_many(f.author_id.eq(&s("ada")), f.title.set(&s("T")))
        .await
        .unwrap();
    assert_eq!((r.matched, r.modified, r.upserted_id), (3, 2, None));
    assert_eq!(posts.count(f.title.eq(&s("T"))).scan().await.unwrap(), 3);
    let none = posts
        .update_many(f.author_id.eq(&s("eve")), f.title.set(&s("X")))
        .await
        .unwrap();
    assert_eq!(
        (none.matched, none.modified, none.upserted_id),
        (0, 0, None)
    );

    assert_eq!(
        posts.delete_many(f.author_id.eq(&s("bob"))).await.unwrap(),
        2
    );
    assert_eq!(
        posts.delete_many(f.author_id.eq(&s("bob"))).await.unwrap(),
        0
    );
    let mut left: Vec<String> = posts
        .find(bson::doc! {})
        .scan()
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.id)
        .collect();
    left.sort();
    assert_eq!(left, ["p1", "p2", "p3"]);
}

#[tokio::test]
async fn an_upsert_inserts_once_then_updates() {
    let (_client, _db, counters) = counters_db("upsert").await;
    let f = Counter::FIELDS;
    let home = s("home");

    // Without upsert, no match writes nothing.
    let r = counters
        .update_one(f.id.eq(&home), f.hits.inc(&1))
        .await
        .unwrap();
    assert_eq!((r.matched, r.upserted_id.clone()), (0, None));
    assert_eq!(counters.get(&home).await.unwrap(), None);

    let first = counters
        .update_one(f.id.eq(&home), f.hits.inc(&1))
        .upsert(true)
        .await
        .unwrap();
    assert_eq!(
        (first.matched, first.modified, first.upserted_id),
        (0, 0, Some(Bson::String(home.clone())))
    );
    let second = counters
        .update_one(f.id.eq(&home), f.hits.inc(&1))
        .upsert(true)
        .await
        .unwrap();
    assert_eq!(
        (second.matched, second.modified, second.upserted_id),
        (1, 1, None)
    );
    assert_eq!(counters.get(&home).await.unwrap(), Some(counter("home", 2)));

    // update_many upserts one document when none matches.
    let many = counters
        .update_many(f.id.eq(&s("away")), f.hits.inc(&5))
        .upsert(true)
        .await
        .unwrap();
    assert_eq!(many.upserted_id, Some(Bson::String(s("away"))));
    assert_eq!(
        counters.get(&s("away")).await.unwrap(),
        Some(counter("away", 5))
    );
}

#[tokio::test]
async fn find_one_and_update_returns_the_document_before_or_after() {
    let (_client, _db, counters) = counters_db("find_and_modify").await;
    let f = Counter::FIELDS;
    counters.insert(&counter("a", 5)).await.unwrap();

    let before = counters
        .find_one_and_update(f.id.eq(&s("a")), f.hits.inc(&1))
        .await
        .unwrap();
    assert_eq!(before, Some(counter("a", 5)));
    let after = counters
        .find_one_and_update(f.id.eq(&s("a")), f.hits.inc(&1))
        .return_document(ReturnDocument::After)
        .await
        .unwrap();
    assert_eq!(after, Some(counter("a", 7)));
    assert_eq!(counters.get(&s("a")).await.unwrap(), Some(counter("a", 7)));

    let missing = counters
        .find_one_and_update(f.id.eq(&s("b")), f.hits.inc(&1))
        .await
        .unwrap();
    assert_eq!(missing, None);
    assert_eq!(counters.get(&s("b")).await.unwrap(), None);
    let upserted = counters
        .find_one_and_update(f.id.eq(&s("b")), f.hits.inc(&3))
        .upsert(true)
        .return_document(ReturnDocument::After)
        .await
        .unwrap();
    assert_eq!(upserted, Some(counter("b", 3)));

    let deleted = counters
        .find_one_and_delete(f.hits.gte(&7))
        .scan()
        .await
        .unwrap();
    assert_eq!(deleted, Some(counter("a", 7)));
    assert_eq!(counters.get(&s("a")).await.unwrap(), None);
    assert_eq!(
        counters
            .find_one_and_delete(f.hits.gte(&7))
            .scan()
            .await
            .unwrap(),
        None
    );
    assert_eq!(counters.count(bson::doc! {}).scan().await.unwrap(), 1);
}

#[tokio::test]
async fn an_ordered_insert_many_stops_at_a_duplicate_and_names_it() {
    let (_client, _db, counters) = counters_db("insert_many_ordered").await;
    counters.insert(&counter("c", 100)).await.unwrap();
    let batch = [
        counter("a", 1),
        counter("b", 2),
        counter("c", 3),
        counter("d", 4),
        counter("e", 5),
    ];
    let err = counters.insert_many(&batch).await.unwrap_err();
    let Error::InsertMany(failure) = &err else {
        panic!("not an InsertMany error: {err}");
    };
    assert!(failure.ordered);
    assert_eq!(failure.total, 5);
    assert_eq!(failure.inserted, [0, 1]);
    assert_eq!(failure.not_tried(), [3, 4]);
    assert_eq!(failure.failed.len(), 1);
    let refused = &failure.failed[0];
    assert_eq!((refused.index, refused.id.as_str()), (2, "c"));
    assert!(
        matches!(&refused.reason, Error::DuplicateKey { index, .. } if index == "_id_"),
        "{}",
        refused.reason
    );
    assert_eq!(err.code(), Some(11000));
    let message = err.to_string();
    assert!(
        message.contains("2 of 5 documents inserted")
            && message.contains("2 not tried")
            && message.contains("#2 (_id `c`)"),
        "{message}"
    );

    // What was written: a and b; c as it was; neither d nor e.
    let mut stored = counters.find(bson::doc! {}).scan().all().await.unwrap();
    stored.sort_by(|x, y| x.id.cmp(&y.id));
    assert_eq!(
        stored,
        [counter("a", 1), counter("b", 2), counter("c", 100)]
    );
}

#[tokio::test]
async fn an_unordered_insert_many_inserts_all_but_the_refused_ones() {
    let (_client, _db, counters) = counters_db("insert_many_unordered").await;
    counters.insert(&counter("c", 100)).await.unwrap();
    // `c` is stored already; the second `f` repeats the first.
    let batch = [
        counter("f", 1),
        counter("c", 2),
        counter("g", 3),
        counter("f", 4),
        counter("h", 5),
    ];
    let err = counters
        .insert_many(&batch)
        .ordered(false)
        .await
        .unwrap_err();
    let Error::InsertMany(failure) = &err else {
        panic!("not an InsertMany error: {err}");
    };
    assert!(!failure.ordered);
    assert_eq!(failure.inserted, [0, 2, 4]);
    assert!(failure.not_tried().is_empty());
    let refused: Vec<(usize, &str)> = failure
        .failed
        .iter()
        .map(|f| (f.index, f.id.as_str()))
        .collect();
    assert_eq!(refused, [(1, "c"), (3, "f")]);
    assert!(failure
        .failed
        .iter()
        .all(|f| matches!(f.reason, Error::DuplicateKey { .. })));

    let mut stored = counters.find(bson::doc! {}).scan().all().await.unwrap();
    stored.sort_by(|x, y| x.id.cmp(&y.id));
    assert_eq!(
        stored,
        [
            counter("c", 100),
            counter("f", 1),
            counter("g", 3),
            counter("h", 5)
        ]
    );
}

#[tokio::test]
async fn a_bounded_push_in_these_updates_keeps_its_guard() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "write_push_guard").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);
    let f = Post::FIELDS;
    let mut full = post("p1", "ada", "Full");
    full.tags = (0..10).map(|i| i.to_string()).collect();
    posts.insert(&full).await.unwrap();
    posts.insert(&post("p2", "ada", "Room")).await.unwrap();

    // update_one: the full document is refused whole, the title included.
    let err = posts
        .update_one(
            f.title.eq(&s("Full")),
            f.tags.push(&s("x")) & f.title.set(&s("Changed")),
        )
        .scan()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::EmbedFull { id, field: "tags", max: 10, .. } if id == "p1"),
        "{err}"
    );
    assert_eq!(posts.get(&s("p1")).await.unwrap(), Some(full.clone()));
    // With room it applies, and find_one_and_update returns the result.
    let after = posts
        .find_one_and_update(f.title.eq(&s("Room")), f.tags.push(&s("x")))
        .scan()
        .return_document(ReturnDocument::After)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after.tags, [s("x")]);
    let err = posts
        .find_one_and_update(f.title.eq(&s("Full")), f.tags.push(&s("x")))
        .scan()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::EmbedFull { .. }), "{err}");
    // No document matches: nothing to be full.
    let r = posts
        .update_one(f.title.eq(&s("None")), f.tags.push(&s("x")))
        .scan()
        .await
        .unwrap();
    assert_eq!(r.matched, 0);

    // update_many and upserts refuse a push before anything is sent.
    log.clear();
    let err = posts
        .update_many(f.author_id.eq(&s("ada")), f.tags.push(&s("y")))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Model(m) if m.contains("update_many") && m.contains("`tags`")),
        "{err}"
    );
    let err = posts
        .update_one(f.title.eq(&s("New")), f.tags.push(&s("y")))
        .upsert(true)
        .scan()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Model(_)), "{err}");
    assert!(log.operations().is_empty(), "{:?}", log.operations());
    assert_eq!(posts.get(&s("p1")).await.unwrap(), Some(full));
}

#[tokio::test]
async fn deleting_many_two_sided_documents_pulls_their_ids_from_the_other_side() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "delete_many_cascade").await;
    models::school::schema().sync(&db).await.unwrap();
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    let links = Links::new(&db, Student::FIELDS.course_ids);
    for st in ["s1", "s2"] {
        students.insert(&Student::new(st, st)).await.unwrap();
    }
    for (co, title) in [("c1", "Art"), ("c2", "Math"), ("c3", "Art")] {
        courses.insert(&Course::new(co, title)).await.unwrap();
    }
    for (st, co) in [("s1", "c1"), ("s2", "c1"), ("s1", "c2"), ("s2", "c3")] {
        links.link(&s(st), &s(co)).await.unwrap();
    }

    let deleted = courses
        .delete_many(Course::FIELDS.title.eq(&s("Art")))
        .scan()
        .await
        .unwrap();
    assert_eq!(deleted, 2);
    let ids = |st: Option<Student>| st.unwrap().course_ids;
    assert_eq!(ids(students.get(&s("s1")).await.unwrap()), [s("c2")]);
    assert!(ids(students.get(&s("s2")).await.unwrap()).is_empty());

    let gone = courses
        .find_one_and_delete(Course::FIELDS.title.eq(&s("Math")))
        .scan()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(gone.student_ids, [s("s1")]);
    assert!(ids(students.get(&s("s1")).await.unwrap()).is_empty());
    assert!(links.verify().await.unwrap().is_consistent());
    assert_eq!(courses.count(bson::doc! {}).scan().await.unwrap(), 0);
}

#[tokio::test]
async fn the_index_guard_refuses_an_unindexed_write_filter_before_sending() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "write_guard").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);
    let f = Post::FIELDS;
    posts.insert(&post("p1", "ada", "One")).await.unwrap();
    log.clear();
    let refused = [
        posts
            .update_one(f.title.eq("One"), f.title.set("Uno"))
            .await
            .map(|_| ()),
        posts
            .update_many(f.title.eq("One"), f.title.set("Uno"))
            .await
            .map(|_| ()),
        posts
            .find_one_and_update(f.title.eq("One"), f.title.set("Uno"))
            .await
            .map(|_| ()),
        posts.delete_many(f.title.eq("One")).await.map(|_| ()),
        posts
            .find_one_and_delete(f.title.eq("One"))
            .await
            .map(|_| ()),
    ];
    for result in refused {
        let err = result.unwrap_err();
        assert!(
            matches!(&err, Error::Unindexed { .. }) && err.to_string().contains("title"),
            "{err}"
        );
    }
    assert!(log.operations().is_empty(), "{:?}", log.operations());

    // Served by an index (the reference's, or `_id`): sent.
    let r = posts
        .update_many(f.author_id.eq("ada"), f.title.set("Uno"))
        .await
        .unwrap();
    assert_eq!(r.modified, 1);
    // The first write on the reference's index asks once that the server
    // has it; the next sends the update alone.
    assert_eq!(log.take_operations(), ["listIndexes", "update"]);
    posts
        .update_many(f.author_id.eq("ada"), f.title.set("Uno"))
        .await
        .unwrap();
    assert_eq!(log.operations(), ["update"]);
    // A scan on purpose: sent.
    assert_eq!(
        posts.delete_many(f.title.eq("Uno")).scan().await.unwrap(),
        1
    );
}
