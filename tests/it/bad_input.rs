//! Bad input gets a clear error and writes nothing:
//!
//! - a document over 16 MiB is refused before anything is sent, naming the
//!   collection, the `_id` and the largest field;
//! - strings that look like operators or paths (`"$gt"`, `"a.b"`,
//!   `"{\"$ne\": 1}"`) are stored and read back as data, as ids and as values,
//!   through every helper;
//! - a push past an array's max is refused (by the helper before sending
//!   when it cannot fit, by the validator when a raw update bypasses it);
//! - a link to an `_id` that does not exist names the missing side;
//! - a stored document of the wrong shape names the collection, the `_id`
//!   and the field.
//!
//! (Pushes past the max through the helpers, racing pushers and full link
//! sides are covered in `embed` and `many_to_many`.)

use crate::models;
use crate::support;

use bson::{doc, Document as BsonDocument};
use models::{Course, Post, Student, User};
use schema_core::code;
use schema_core::prelude::*;
use schema_core::MAX_DOCUMENT_SIZE;
use schema_core::{Error, OnViolations, Schema, SyncOptions};
use serde::{Deserialize, Serialize};

/// A model whose documents can be made as large as wanted.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "blobs")]
struct Blob {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    body: String,
    #[embed(max = 4)]
    parts: Vec<String>,
}

fn blob(id: &str, body: usize, parts: &[usize]) -> Blob {
    Blob {
        id: id.to_owned(),
        title: "t".into(),
        body: "b".repeat(body),
        parts: parts.iter().map(|n| "p".repeat(*n)).collect(),
    }
}

fn size_of(doc: &Blob) -> usize {
    bson::serialize_to_vec(doc).unwrap().len()
}

fn writes(log: &support::CommandLog) -> Vec<String> {
    log.operations()
        .into_iter()
        .filter(|c| matches!(c.as_str(), "insert" | "update" | "delete"))
        .collect()
}

#[tokio::test]
async fn a_document_over_16_mib_is_refused_before_sending_naming_its_largest_field() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "bad_size").await;
    Schema::new().with::<Blob>().sync(&db).await.unwrap();
    let blobs = Repo::<Blob>::new(&db);

    // Exactly at the limit: accepted by the check and by the server.
    let base = size_of(&blob("edge", 0, &[]));
    let at_limit = blob("edge", MAX_DOCUMENT_SIZE - base, &[]);
    assert_eq!(size_of(&at_limit), MAX_DOCUMENT_SIZE);
    blobs.insert(&at_limit).await.unwrap();
    assert_eq!(
        blobs
            .get(&"edge".to_owned())
            .await
            .unwrap()
            .unwrap()
            .body
            .len(),
        MAX_DOCUMENT_SIZE - base
    );

    // One byte over: refused, nothing sent.
    log.clear();
    let over = blob("over", MAX_DOCUMENT_SIZE - base + 1, &[]);
    let err = blobs.insert(&over).await.unwrap_err();
    let message = err.to_string();
    match &err {
        Error::TooLarge {
            collection,
            id,
            size,
            limit,
            field,
            field_size,
        } => {
            assert_eq!(
                (*collection, id.as_str(), field.as_str()),
                ("blobs", "over", "body")
            );
            assert_eq!((*size, *limit), (MAX_DOCUMENT_SIZE + 1, MAX_DOCUMENT_SIZE));
            assert!(*field_size > MAX_DOCUMENT_SIZE - base);
        }
        other => panic!("{other:?}"),
    }
    for part in [
        "blobs",
        "over",
        "`body`",
        "16777217 bytes",
        "16 MiB",
        "nothing was sent",
    ] {
        assert!(message.contains(part), "{part:?} in {message}");
    }
    assert_eq!(writes(&log), Vec::<String>::new(), "nothing sent");
    println!("too large: {message}");

    // The largest field is named even when it is an array of small items.
    let err = blobs
        .insert(&blob("arr", 1000, &[6 << 20, 6 << 20, 6 << 20, 1]))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::TooLarge { field, .. } if field == "parts"),
        "{err:?}"
    );

    // Replace: refused, the stored document unchanged.
    blobs.insert(&blob("b1", 10, &[])).await.unwrap();
    log.clear();
    let err = blobs.replace(&blob("b1", 17 << 20, &[])).await.unwrap_err();
    assert!(matches!(err, Error::TooLarge { .. }), "{err:?}");
    assert_eq!(
        blobs.get(&"b1".to_owned()).await.unwrap().unwrap(),
        blob("b1", 10, &[])
    );

    // insert_many: one too large among small ones, none sent.
    let batch = [
        blob("m1", 10, &[]),
        blob("m2", 17 << 20, &[]),
        blob("m3", 10, &[]),
    ];
    let err = blobs.insert_many(&batch).await.unwrap_err();
    assert!(
        matches!(&err, Error::TooLarge { id, .. } if id == "m2"),
        "{err:?}"
    );
    assert_eq!(writes(&log), Vec::<String>::new(), "nothing sent");
    assert_eq!(
        blobs
            .count(doc! { "_id": { "$in": ["over", "arr", "m1", "m2", "m3"] } })
            .await
            .unwrap(),
        0
    );
}

/// Strings that a careless layer would read as operators or paths.
const TRICKY: [&str; 6] = ["$gt", "a.b", "{\"$ne\": 1}", "$where", "$set", "x.$[]"];

#[tokio::test]
async fn operator_like_strings_are_stored_and_read_back_as_data() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "bad_operators").await;
    models::school::schema()
        .with::<Post>()
        .sync(&db)
        .await
        .unwrap();
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    let raw_students = db.collection::<BsonDocument>("students");

    // As ids and as values.
    for t in TRICKY {
        students.insert(&Student::new(t, t)).await.unwrap();
        courses.insert(&Course::new(t, t)).await.unwrap();
    }
    // A plain one, which no tricky filter may match.
    students
        .insert(&Student::new("plain", "plain"))
        .await
        .unwrap();
    assert_eq!(students.count(doc! {}).scan().await.unwrap(), 7);

    let links = Links::new(&db, Student::FIELDS.course_ids);
    for t in TRICKY {
        let id = t.to_owned();
        // Stored as the string, read back as the string.
        let stored = raw_students
            .find_one(doc! { "_id": t })
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.get_str("_id").unwrap(), t);
        assert_eq!(stored.get_str("name").unwrap(), t);
        let got = students.get(&id).await.unwrap().unwrap();
        assert_eq!((got.id.as_str(), got.name.as_str()), (t, t));
        // A filter on the value matches that document only.
        // `name` has no index: seven students, scanned on purpose.
        let found = students
            .find(Student::FIELDS.name.eq(&id))
            .scan()
            .all()
            .await
            .unwrap();
        assert_eq!(found.len(), 1, "{t}: {found:?}");
        assert_eq!(found[0].id, t);
        let many = students.get_many([&id]).await.unwrap();
        assert_eq!(many.len(), 1, "{t}");
        // An update sets the string.
        let renamed = format!("{t}!");
        assert!(students
            .update(&id, Student::FIELDS.name.set(&renamed))
            .await
            .unwrap());
        assert_eq!(students.get(&id).await.unwrap().unwrap().name, renamed);
        // Linked both ways, the string on both sides.
        links.link(&id, &id).await.unwrap();
        links.link(&id, &"$gt".to_owned()).await.unwrap();
    }
    for t in TRICKY {
        let st = students.get(&t.to_owned()).await.unwrap().unwrap();
        let mut want = vec![t.to_owned()];
        if t != "$gt" {
            want.push("$gt".to_owned());
        }
        assert_eq!(st.course_ids, want, "{t}");
    }
    let gt = courses.get(&"$gt".to_owned()).await.unwrap().unwrap();
    assert_eq!(gt.student_ids, TRICKY.map(str::to_owned).to_vec());
    let report = links.verify().await.unwrap();
    assert!(report.is_consistent(), "{report:?}");
    assert_eq!(report.edges, 2 * TRICKY.len() - 1);

    // Unlink and the cascading delete pull exactly that string.
    links
        .unlink(&"a.b".to_owned(), &"$gt".to_owned())
        .await
        .unwrap();
    assert!(students.delete(&"$where".to_owned()).await.unwrap());
    let gt = courses.get(&"$gt".to_owned()).await.unwrap().unwrap();
    assert_eq!(gt.student_ids, ["$gt", "{\"$ne\": 1}", "$set", "x.$[]"]);
    assert_eq!(
        students.count(doc! {}).scan().await.unwrap(),
        6,
        "one deleted"
    );
    assert!(links.verify().await.unwrap().is_consistent());

    // Embedded values: pushed and pulled as data.
    let posts = Repo::<Post>::new(&db);
    let post_id = "$gt".to_owned();
    posts
        .insert(&Post {
            id: post_id.clone(),
            author_id: "{\"$ne\": 1}".into(),
            title: "a.b".into(),
            tags: Vec::new(),
            at: bson::DateTime::from_millis(0),
        })
        .await
        .unwrap();
    let tags = posts.embed(Post::FIELDS.tags);
    for t in TRICKY {
        tags.push(&post_id, &t.to_owned()).await.unwrap();
    }
    tags.pull(&post_id, &"$gt".to_owned()).await.unwrap();
    let post = posts.get(&post_id).await.unwrap().unwrap();
    assert_eq!(
        post.tags,
        TRICKY[1..]
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(post.author_id, "{\"$ne\": 1}");
    let by_author = posts
        .find(Post::FIELDS.author_id.eq(&"{\"$ne\": 1}".to_owned()))
        .all()
        .await
        .unwrap();
    assert_eq!(by_author.len(), 1);
    // A child page on a tricky parent id.
    let page = posts
        .children(Post::FIELDS.author_id, &"{\"$ne\": 1}".to_owned())
        .page()
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
}

#[tokio::test]
async fn a_push_past_the_max_is_refused_and_writes_nothing() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "bad_push").await;
    Schema::new().with::<Blob>().sync(&db).await.unwrap();
    let blobs = Repo::<Blob>::new(&db);
    let id = "b1".to_owned();
    blobs.insert(&blob("b1", 1, &[1, 1, 1])).await.unwrap();
    let parts = blobs.embed(Blob::FIELDS.parts);

    // More items than the max can ever hold: refused before sending.
    log.clear();
    let five: Vec<String> = (0..5).map(|i| i.to_string()).collect();
    let err = parts.push_many(&id, &five).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::EmbedFull {
                collection: "blobs",
                field: "parts",
                max: 4,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(writes(&log), Vec::<String>::new(), "nothing sent");

    // Two into the one free place: one conditional update, which matches nothing.
    let err = parts.push_many(&id, &five[..2]).await.unwrap_err();
    assert!(matches!(err, Error::EmbedFull { .. }), "{err:?}");
    assert!(
        err.to_string().contains("`blobs.parts` of `b1` is full"),
        "{err}"
    );
    parts.push(&id, &"last".to_owned()).await.unwrap();
    let err = parts.push(&id, &"one more".to_owned()).await.unwrap_err();
    assert!(matches!(err, Error::EmbedFull { .. }), "{err:?}");

    // A raw `$push` through `Repo::update` bypasses the helper: the
    // collection's validator (`maxItems: 4`) refuses it.
    let err = blobs
        .update(&id, doc! { "$push": { "parts": "bypass" } })
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some(code::DOCUMENT_VALIDATION_FAILURE),
        "DocumentValidationFailure: {err}"
    );
    assert_eq!(
        blobs.get(&id).await.unwrap().unwrap().parts,
        ["p", "p", "p", "last"],
        "nothing written"
    );
}

#[tokio::test]
async fn a_link_to_a_missing_id_names_the_missing_side_and_writes_nothing() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "bad_link").await;
    models::school::schema().sync(&db).await.unwrap();
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    students.insert(&Student::new("s1", "S")).await.unwrap();
    courses.insert(&Course::new("c1", "C")).await.unwrap();
    let links = Links::new(&db, Student::FIELDS.course_ids);

    // The student side is missing: the course is untouched.
    let err = links
        .link(&"ghost".to_owned(), &"c1".to_owned())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { collection: "students", id } if id == "ghost"),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "no document in `students` has _id `ghost`");
    // The course side is missing: the student's half is rolled back.
    let err = links
        .link(&"s1".to_owned(), &"nowhere".to_owned())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::NotFound { collection: "courses", id } if id == "nowhere"),
        "{err:?}"
    );
    // Both missing: the first side written is named.
    let err = links
        .link(&"ghost".to_owned(), &"nowhere".to_owned())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::NotFound {
                collection: "students",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(students
        .get(&"s1".to_owned())
        .await
        .unwrap()
        .unwrap()
        .course_ids
        .is_empty());
    assert!(courses
        .get(&"c1".to_owned())
        .await
        .unwrap()
        .unwrap()
        .student_ids
        .is_empty());
    assert_eq!(
        students.count(doc! {}).scan().await.unwrap(),
        1,
        "no upsert"
    );
    assert_eq!(courses.count(doc! {}).scan().await.unwrap(), 1, "no upsert");
    let report = links.verify().await.unwrap();
    assert!(report.is_consistent() && report.edges == 0, "{report:?}");
}

#[tokio::test]
async fn a_stored_document_of_the_wrong_shape_names_collection_id_and_field() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "bad_shape").await;
    // Written before the models had validators (or by another program).
    let raw = |c: &str| db.collection::<BsonDocument>(c);
    raw("students")
        .insert_many([
            doc! { "_id": "ok", "name": "Fine", "courseIds": [] },
            doc! { "_id": "s1", "name": 42, "courseIds": [] },
            doc! { "_id": "s2", "courseIds": [] },
        ])
        .await
        .unwrap();
    raw("courses")
        .insert_one(doc! { "_id": "c1", "title": "C", "studentIds": ["s1", 7] })
        .await
        .unwrap();
    raw("users")
        .insert_one(doc! {
            "_id": "u1", "email": "u@example.com",
            "profile": { "displayName": "U", "joinedYear": "1999" },
        })
        .await
        .unwrap();
    raw("posts")
        .insert_one(doc! {
            "_id": "p1", "authorId": "u1", "title": "T", "tags": [],
            "at": "yesterday",
        })
        .await
        .unwrap();
    // These documents fail the models' validators on purpose: setup refuses
    // such a change by default, so apply the validators anyway.
    let apply = SyncOptions {
        on_violations: OnViolations::Apply,
        ..Default::default()
    };
    Schema::new()
        .with::<Student>()
        .with::<Course>()
        .with::<User>()
        .with::<Post>()
        .sync_with(&db, apply)
        .await
        .unwrap();

    let check = |err: Error, collection: &str, id: &str, field: &str| {
        let message = err.to_string();
        match &err {
            Error::Decode {
                collection: c,
                id: i,
                field: f,
                ..
            } => {
                assert_eq!(
                    (*c, i.as_str(), f.as_deref()),
                    (collection, id, Some(field))
                );
            }
            other => panic!("{other:?}"),
        }
        for part in [collection, id, field] {
            assert!(
                message.contains(&format!("`{part}`")),
                "{part} in {message}"
            );
        }
        message
    };

    let students = Repo::<Student>::new(&db);
    assert_eq!(
        students.get(&"ok".to_owned()).await.unwrap().unwrap().name,
        "Fine"
    );
    let m = check(
        students.get(&"s1".to_owned()).await.unwrap_err(),
        "students",
        "s1",
        "name",
    );
    assert!(m.contains("Student") && m.contains("42"), "{m}");
    println!("wrong type: {m}");
    check(
        students.find(doc! {}).scan().all().await.unwrap_err(),
        "students",
        "s1",
        "name",
    );
    check(
        students.find_one(doc! { "_id": "s1" }).await.unwrap_err(),
        "students",
        "s1",
        "name",
    );
    check(
        Repo::<Course>::new(&db)
            .get(&"c1".to_owned())
            .await
            .unwrap_err(),
        "courses",
        "c1",
        "studentIds[1]",
    );
    check(
        Repo::<User>::new(&db)
            .get(&"u1".to_owned())
            .await
            .unwrap_err(),
        "users",
        "u1",
        "profile.joinedYear",
    );
    let posts = Repo::<Post>::new(&db);
    check(
        posts.get(&"p1".to_owned()).await.unwrap_err(),
        "posts",
        "p1",
        "at",
    );
    // Paging children reads through the same check.
    check(
        posts
            .children(Post::FIELDS.author_id, &"u1".to_owned())
            .page()
            .await
            .unwrap_err(),
        "posts",
        "p1",
        "at",
    );
    // A missing field is named too.
    let m = check(
        students.get(&"s2".to_owned()).await.unwrap_err(),
        "students",
        "s2",
        "name",
    );
    assert!(m.contains("missing field"), "{m}");
    println!("missing field: {m}");
}
