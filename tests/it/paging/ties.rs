//! Keyset paging through long runs of equal sort values: every page reads at
//! most page size + 1 keys of the reference index (`_id` last, in the sort
//! key's direction), the cursor keeps one size, ties come by `_id` in the
//! page's direction, and a deployment that still has the index without
//! `_id` is told what setup will do.

use crate::models;
use crate::support;

use bson::{doc, DateTime, Document as BsonDocument};
use models::Post;
use schema_core::prelude::*;
use schema_core::{explain_find, FindShape};
use schema_core::{Children, Cursor};
use schema_core::{Error, IndexSpec, Schema};
use serde::{Deserialize, Serialize};

const BASE_MS: i64 = 1_700_000_000_000;
const TIED_MS: i64 = BASE_MS + 1_000_000;
const REFERENCE_INDEX: &str = "IXSCAN(authorId_1_at_-1__id_-1)";

fn post(id: String, author: &str, at_ms: i64) -> Post {
    Post {
        id,
        author_id: author.to_owned(),
        title: "t".into(),
        tags: Vec::new(),
        at: DateTime::from_millis(at_ms),
    }
}

/// `ada`: 5 newer posts, a run of `run` posts at one instant, 5 older
/// posts; `bob`: 1,000 posts at the same instant (the same index keys but
/// another parent). Returns ada's posts in the documented order: `at`
/// descending, then `_id` descending.
async fn seed_tie_run(posts: &Repo<Post>, run: usize) -> Vec<String> {
    let mut all = Vec::new();
    for i in 0..5 {
        all.push(post(format!("new_{i:05}"), "ada", TIED_MS + 1000 + i));
        all.push(post(format!("old_{i:05}"), "ada", BASE_MS + i));
    }
    // Inserted out of `_id` order, so that insertion order is not the answer.
    for i in 0..run {
        let n = (i * 7919) % run;
        all.push(post(format!("tie_{n:05}"), "ada", TIED_MS));
    }
    for i in 0..1000 {
        all.push(post(format!("bob_{i:05}"), "bob", TIED_MS));
    }
    for chunk in all.chunks(2000) {
        posts.insert_many(chunk).await.unwrap();
    }
    let mut ada: Vec<&Post> = all.iter().filter(|p| p.author_id == "ada").collect();
    ada.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| b.id.cmp(&a.id)));
    ada.into_iter().map(|p| p.id.clone()).collect()
}

fn cursor_bytes(cursor: &Cursor) -> usize {
    bson::serialize_to_vec(&bson::serialize_to_document(cursor).unwrap())
        .unwrap()
        .len()
}

/// Every page of `children`, each explained before it is read: the plan
/// must ride the reference index in order and read at most page size + 1
/// keys. Returns the ids in page order and the size of each cursor.
async fn walk<C: Document, T, P>(
    children: Children<'_, C, T, P>,
    size: u32,
    index: &str,
    id_of: impl Fn(&C) -> String,
) -> (Vec<String>, Vec<usize>) {
    let mut ids = Vec::new();
    let mut sizes = Vec::new();
    let mut query = children.clone();
    for page_no in 1.. {
        let plan = query.explain().await.unwrap();
        let page = query.page().await.unwrap();
        assert!(
            plan.keys_examined <= u64::from(size) + 1,
            "page {page_no} reads more than page size + 1 keys: {plan}"
        );
        assert!(
            plan.shape() == format!("LIMIT > FETCH > {index}") && !plan.is_collscan(),
            "page {page_no}: {plan}"
        );
        assert_eq!(
            plan.returned,
            page.items.len() as u64,
            "page {page_no}: {plan}"
        );
        ids.extend(page.items.iter().map(&id_of));
        match page.next {
            Some(next) => {
                sizes.push(cursor_bytes(&next));
                query = children.clone().after(next);
            }
            None => return (ids, sizes),
        }
    }
    unreachable!()
}

#[tokio::test]
async fn a_5000_long_tie_run_reads_at_most_page_size_plus_one_keys_per_page() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "ties_5000").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);
    let expected = seed_tie_run(&posts, 5000).await;
    let ada = "ada".to_owned();

    // Page size 50: 101 pages each way, every one explained.
    let children = posts.children(Post::FIELDS.author_id, &ada).page_size(50);
    let (ids, sizes) = walk(children.clone(), 50, REFERENCE_INDEX, |p| p.id.clone()).await;
    assert_eq!(ids.len(), expected.len(), "no post skipped or repeated");
    assert_eq!(ids, expected, "newest first, ties by `_id` descending");
    // The cursor is the last value, the last `_id` and a flag: its size is
    // the same on page 1 and deep inside the run.
    println!("cursor sizes: {:?}", &sizes[..5]);
    assert!(sizes.iter().all(|s| *s == sizes[0]), "{sizes:?}");
    assert!(sizes[0] < 100, "{}", sizes[0]);

    // Oldest first: exactly the reverse, on the same index read backwards.
    let (ids, _) = walk(children.reversed(), 50, REFERENCE_INDEX, |p| p.id.clone()).await;
    let mut reversed = expected.clone();
    reversed.reverse();
    assert_eq!(ids, reversed, "oldest first, ties by `_id` ascending");
}

#[tokio::test]
async fn a_page_inside_a_run_is_one_find_and_the_end_of_a_run_at_most_two() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "ties_commands").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);
    let expected = seed_tie_run(&posts, 25).await;
    let ada = "ada".to_owned();
    let children = posts.children(Post::FIELDS.author_id, &ada).page_size(10);
    children.page().await.unwrap(); // checks the index once
    let mut query = children.clone();
    let mut finds = Vec::new();
    let mut ids = Vec::new();
    loop {
        log.clear();
        let page = query.page().await.unwrap();
        finds.push(log.operations().len());
        ids.extend(page.items.iter().map(|p| p.id.clone()));
        match page.next {
            Some(next) => query = children.clone().after(next),
            None => break,
        }
    }
    assert_eq!(ids, expected);
    // 35 posts: 5 newer + 5 ties | 10 ties | 10 ties | end of the run (2
    // finds: 5 ties, then 5 older posts) — the cursor after page 1 sits on
    // the first tie, so page 2 is one find too.
    assert_eq!(finds, [1, 1, 1, 2], "finds per page");

    // With the index as a hint: the same pages, the same plans.
    let (hinted, _) = walk(children.hinted(), 10, REFERENCE_INDEX, |p| p.id.clone()).await;
    assert_eq!(hinted, expected);
}

#[tokio::test]
async fn ties_inserted_between_pages_are_seen_after_the_cursor_and_never_twice() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "ties_inserts").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);
    let ada = "ada".to_owned();
    let run: Vec<Post> = (0..40)
        .map(|i| post(format!("tie_{:03}", i * 10), "ada", TIED_MS))
        .collect();
    posts.insert_many(&run).await.unwrap();

    let children = posts.children(Post::FIELDS.author_id, &ada).page_size(4);
    let mut seen: Vec<String> = Vec::new();
    let mut page = children.page().await.unwrap();
    let mut added_after = Vec::new();
    let mut round = 0;
    loop {
        seen.extend(page.items.iter().map(|p| p.id.clone()));
        let Some(next) = page.next.take() else { break };
        let last = seen.last().unwrap().clone();
        // Equal `at`: one `_id` below the cursor's (after it: newest first
        // is `_id` descending), one above it (before it).
        let mut after: Vec<char> = last.chars().collect();
        let end = after.len() - 1;
        after[end] = char::from(after[end] as u8 - 1);
        after.push('~');
        let after: String = after.into_iter().collect();
        let before = format!("{last}x");
        assert!(after < last && before > last);
        posts
            .insert(&post(after.clone(), "ada", TIED_MS))
            .await
            .unwrap();
        posts.insert(&post(before, "ada", TIED_MS)).await.unwrap();
        added_after.push(after);
        round += 1;
        assert!(round < 100, "paging does not end");
        page = children.clone().after(next).page().await.unwrap();
    }
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), seen.len(), "no post twice: {seen:?}");
    for p in run.iter().map(|p| &p.id).chain(&added_after) {
        assert!(seen.contains(p), "{p} skipped: {seen:?}");
    }
    assert!(
        seen.windows(2).all(|w| w[0] > w[1]),
        "`_id` descending: {seen:?}"
    );
    assert!(
        !seen.iter().any(|id| id.ends_with('x')),
        "inserted before the cursor"
    );
}

/// A reference without a sort key: every child ties, so pages go by `_id`.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "comments")]
struct Comment {
    #[serde(rename = "_id")]
    id: i32,
    #[reference(index)]
    thread: String,
}

#[tokio::test]
async fn a_reference_without_a_sort_key_pages_by_id_on_its_index() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "ties_no_sort").await;
    Schema::new().with::<Comment>().sync(&db).await.unwrap();
    let comments = Repo::<Comment>::new(&db);
    let all: Vec<Comment> = (0..600)
        .map(|i| Comment {
            id: (i * 7919) % 600,
            thread: if i % 3 == 0 { "other" } else { "t" }.into(),
        })
        .collect();
    comments.insert_many(&all).await.unwrap();
    let mut expected: Vec<i32> = all
        .iter()
        .filter(|c| c.thread == "t")
        .map(|c| c.id)
        .collect();
    expected.sort();

    let thread = "t".to_owned();
    let children = comments
        .children(Comment::FIELDS.thread, &thread)
        .page_size(7);
    let (ids, _) = walk(children, 7, "IXSCAN(thread_1__id_1)", |c| c.id.to_string()).await;
    let expected: Vec<String> = expected.iter().map(i32::to_string).collect();
    assert_eq!(ids, expected, "`_id` ascending");
}

/// Null and missing sort keys in long runs, with runs of equal values.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "notes")]
struct Note {
    #[serde(rename = "_id")]
    id: i32,
    #[reference(index, sort(at = desc))]
    owner: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    at: Option<i32>,
}

#[tokio::test]
async fn runs_of_null_missing_and_equal_sort_keys_page_in_order_both_ways() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "ties_nulls").await;
    Schema::new().with::<Note>().sync(&db).await.unwrap();
    let notes = Repo::<Note>::new(&db);
    // 30 with `at: 2`, 30 with `at: 1`, 30 without `at`, 30 with `at: null`.
    let all: Vec<Note> = (0..120)
        .map(|i| Note {
            id: (i * 37) % 120,
            owner: "o".into(),
            at: match i % 4 {
                0 => Some(2),
                1 => Some(1),
                _ => None,
            },
        })
        .collect();
    let notes_coll = db.collection::<BsonDocument>("notes");
    for note in &all {
        let mut raw = bson::serialize_to_document(note).unwrap();
        if note.id % 2 == 0 && note.at.is_none() {
            raw.insert("at", bson::Bson::Null); // stored null, not missing
        }
        notes_coll.insert_one(raw).await.unwrap();
    }
    let key = |id: &i32| all.iter().find(|n| n.id == *id).unwrap().at;
    let mut newest: Vec<i32> = all.iter().map(|n| n.id).collect();
    newest.sort_by(|a, b| key(b).cmp(&key(a)).then_with(|| b.cmp(a)));
    let owner = "o".to_owned();
    for size in [1, 4, 30] {
        let children = notes.children(Note::FIELDS.owner, &owner).page_size(size);
        let index = "IXSCAN(owner_1_at_-1__id_-1)";
        let (desc, _) = walk(children.clone(), size, index, |n| n.id.to_string()).await;
        let expected: Vec<String> = newest.iter().map(i32::to_string).collect();
        assert_eq!(
            desc, expected,
            "page size {size}: nulls last, ties by `_id` desc"
        );
        let (asc, _) = walk(children.reversed(), size, index, |n| n.id.to_string()).await;
        let mut expected = expected;
        expected.reverse();
        assert_eq!(asc, expected, "page size {size}: exactly the reverse");
    }
}

#[tokio::test]
async fn a_deployment_with_the_index_without_id_gets_a_plan_and_a_clear_error() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "ties_upgrade").await;
    // What setup created before `_id` joined the reference index.
    let old = mongodb::IndexModel::builder()
        .keys(doc! { "authorId": 1, "at": -1 })
        .options(
            mongodb::options::IndexOptions::builder()
                .name("authorId_1_at_-1".to_owned())
                .build(),
        )
        .build();
    db.collection::<BsonDocument>("posts")
        .create_index(old)
        .await
        .unwrap();
    let posts = Repo::<Post>::new(&db);
    posts
        .insert(&post("p1".into(), "ada", TIED_MS))
        .await
        .unwrap();

    // A cursor the previous release serialized still parses.
    let saved = doc! { "last": DateTime::from_millis(TIED_MS), "id": "p0", "ties": ["a", "b"] };
    let cursor: Cursor = bson::deserialize_from_document(saved).unwrap();
    assert_eq!((cursor.id.as_str(), cursor.tied), (Some("p0"), false));

    let err = posts
        .children(Post::FIELDS.author_id, &"ada".to_owned())
        .page()
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::MissingIndex { .. }), "{message}");
    assert!(message.contains("authorId_1_at_-1__id_-1"), "{message}");

    // Why `_id` joins the index: on the old one a sort with the `_id`
    // tie-break is a SORT in memory over every post of the author.
    let tie_sorted = FindShape {
        filter: doc! { "authorId": "ada" },
        sort: Some(doc! { "at": -1, "_id": -1 }),
        limit: Some(10),
        ..FindShape::default()
    };
    let old_plan = explain_find(&db, "posts", &tie_sorted).await.unwrap();
    println!("sort {{at: -1, _id: -1}} on the old index: {old_plan}");
    assert!(old_plan.sorts_in_memory(), "{old_plan}");

    let schema = Schema::new().with::<Post>();
    let plan = schema.plan(&db).await.unwrap();
    let text = plan.to_string();
    println!("{text}");
    assert!(
        text.contains("create index") && text.contains("authorId_1_at_-1__id_-1"),
        "{text}"
    );
    assert!(
        text.contains("drift: extra index") && text.contains("authorId_1_at_-1 "),
        "{text}"
    );
    schema.sync(&db).await.unwrap();
    let new_plan = explain_find(&db, "posts", &tie_sorted).await.unwrap();
    println!("sort {{at: -1, _id: -1}} after setup: {new_plan}");
    assert_eq!(
        new_plan.shape(),
        format!("LIMIT > FETCH > {REFERENCE_INDEX}")
    );
    let page = Repo::<Post>::new(&db)
        .children(Post::FIELDS.author_id, &"ada".to_owned())
        .page()
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
}

/// One child per parent: a unique reference has no ties, so no `_id`.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "avatars")]
struct Avatar {
    #[serde(rename = "_id")]
    id: i32,
    #[reference(index, unique)]
    owner: String,
}

/// Sorted by `_id` already: nothing to add.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "events")]
struct Event {
    #[serde(rename = "_id")]
    id: i32,
    #[reference(index, sort(id = desc))]
    stream: String,
}

#[test]
fn a_reference_index_ends_with_id_in_the_sort_direction_unless_unique() {
    let names = |specs: Vec<IndexSpec>| specs.into_iter().map(|s| s.name).collect::<Vec<_>>();
    assert_eq!(names(Post::indexes()), ["authorId_1_at_-1__id_-1"]);
    assert_eq!(names(Note::indexes()), ["owner_1_at_-1__id_-1"]);
    assert_eq!(names(Comment::indexes()), ["thread_1__id_1"]);
    assert_eq!(names(Avatar::indexes()), ["owner_1"]);
    assert!(Avatar::indexes()[0].unique);
    assert_eq!(names(Event::indexes()), ["stream_1__id_-1"]);
}

/// Why a page is not one `find` with the keyset bound as a top-level `$or`:
/// the server plans each branch on its own and sorts their union in memory,
/// reading every key of both ranges instead of stopping at the page size.
#[tokio::test]
async fn a_top_level_or_keyset_bound_is_sorted_in_memory_by_the_server() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "ties_or").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);
    seed_tie_run(&posts, 200).await;
    let rooted_or = FindShape {
        filter: doc! { "$or": [
            { "authorId": "ada", "at": { "$lt": DateTime::from_millis(TIED_MS) } },
            { "authorId": "ada", "at": DateTime::from_millis(TIED_MS), "_id": { "$lt": "tie_00100" } },
        ] },
        sort: Some(doc! { "at": -1, "_id": -1 }),
        limit: Some(10),
        ..FindShape::default()
    };
    let plan = explain_find(&db, "posts", &rooted_or).await.unwrap();
    println!("top-level $or: {plan}");
    assert!(plan.sorts_in_memory(), "{plan}");
    assert!(plan.keys_examined > 100, "{plan}");
}
