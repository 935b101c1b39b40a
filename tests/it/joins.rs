//! Joins in one round trip (seed 003's `$lookup`): a page of posts with
//! their authors, and an author with the newest posts, each one `aggregate`
//! on the indexes the models declare, returning what `page()` +
//! `parents_of()` return in two.

use crate::models;
use crate::support;

use models::{Post, User};
use schema_core::prelude::*;
use schema_core::Cursor;
use schema_core::Family;
use schema_core::{Error, Schema};

const BASE_MS: i64 = 1_700_000_000_000;

fn post(i: usize, author: &str, at_ms: i64) -> Post {
    Post::sample(i, author, at_ms)
}

fn user(i: usize) -> User {
    User::sample(i)
}

/// 50 users; 2,000 posts, 40 per author, with runs of four equal
/// timestamps (so ties cross page boundaries); and 7 posts by `ghost`, a
/// user who does not exist.
async fn seed(db: &mongodb::Database) -> (Repo<User>, Repo<Post>) {
    Schema::new()
        .with::<User>()
        .with::<Post>()
        .sync(db)
        .await
        .unwrap();
    let users = Repo::<User>::new(db);
    let posts = Repo::<Post>::new(db);
    users
        .insert_many(&(0..50).map(user).collect::<Vec<_>>())
        .await
        .unwrap();
    let mut all: Vec<Post> = (0..2000)
        .map(|i| {
            let at = BASE_MS + (i / 4) as i64 * 1000;
            post(i, &format!("user_{}", i % 50), at)
        })
        .collect();
    all.extend((0..7).map(|i| post(5000 + i, "ghost", BASE_MS + i as i64)));
    posts.insert_many(&all).await.unwrap();
    (users, posts)
}

#[tokio::test]
async fn a_page_with_parents_is_one_aggregate_and_pairs_like_page_then_parents_of() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "join_pairs").await;
    let (users, posts) = seed(&db).await;
    // Posts of every author, by `_id` (the `_id` index serves it).
    let from = "post_".to_owned();
    let query = || posts.find(Post::FIELDS.id.gte(&from));

    // Every page of the whole collection, 64 at a time: the joined pages and
    // the two-query pages agree, cursor for cursor.
    let (mut after, mut pages, mut seen) = (None, 0, 0);
    loop {
        let joined = match after.clone() {
            Some(c) => query().after(c),
            None => query(),
        };
        log.clear();
        let joined = joined
            .with_parents(Post::FIELDS.author_id)
            .page(64)
            .await
            .unwrap();
        let sent = log.take();
        assert!(
            sent.iter().filter(|c| *c == "aggregate").count() == 1
                && sent.iter().all(|c| c == "aggregate" || c == "listIndexes"),
            "one aggregate per page: {sent:?}"
        );

        let plain = match after.clone() {
            Some(c) => query().after(c),
            None => query(),
        };
        let plain = plain.page(64).await.unwrap();
        let parents = users
            .parents_of(Post::FIELDS.author_id, &plain.items)
            .await
            .unwrap();
        let expected: Vec<(Post, Option<User>)> = plain.items.into_iter().zip(parents).collect();
        assert_eq!(joined.items, expected, "page {pages}");
        assert_eq!(joined.next, plain.next, "page {pages}");
        for (post, author) in &joined.items {
            match post.author_id.as_str() {
                "ghost" => assert_eq!(author, &None),
                id => assert_eq!(author.as_ref().map(|u| u.id.as_str()), Some(id)),
            }
        }
        seen += joined.items.len();
        pages += 1;
        match joined.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, 2007, "every post once, across {pages} pages");
}

/// The first page (20) of `author`'s posts with the author.
async fn family_of(posts: &Repo<Post>, author: &str) -> Family<User, Post> {
    let author = author.to_owned();
    posts
        .children(Post::FIELDS.author_id, &author)
        .with_parent()
        .page()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_parent_with_its_newest_children_is_one_aggregate_and_pages_on() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "join_family").await;
    let (users, posts) = seed(&db).await;
    let ada = "user_7".to_owned();

    let newest = |after: Option<Cursor>| {
        let children = posts.children(Post::FIELDS.author_id, &ada).page_size(6);
        match after {
            Some(c) => children.after(c),
            None => children,
        }
    };
    let mut after = None;
    let mut all = Vec::new();
    loop {
        log.clear();
        let family = newest(after.clone()).with_parent().page().await.unwrap();
        let sent = log.take();
        assert!(
            sent.iter().filter(|c| *c == "aggregate").count() == 1
                && sent.iter().all(|c| c == "aggregate" || c == "listIndexes"),
            "{sent:?}"
        );
        let plain = newest(after.clone()).page().await.unwrap();
        assert_eq!(family.children, plain.items);
        assert_eq!(family.next, plain.next);
        if !family.children.is_empty() {
            assert_eq!(
                family.parent,
                users.get(&ada).await.unwrap(),
                "the parent comes with its children"
            );
        }
        all.extend(family.children);
        match family.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(all.len(), 40);
    assert!(all
        .windows(2)
        .all(|w| (w[0].at, &w[0].id) > (w[1].at, &w[1].id)));

    // A parent without children: its page is empty, the parent read by
    // `_id` (a second query).
    let lonely = users.insert(&user(99)).await;
    lonely.unwrap();
    log.clear();
    let family = family_of(&posts, "user_99").await;
    assert_eq!(log.take(), ["aggregate", "find"]);
    assert_eq!(family.parent.map(|u| u.id), Some("user_99".to_owned()));
    assert!(family.children.is_empty() && family.next.is_none());

    // Children whose parent is gone, and no parent at all.
    let family = family_of(&posts, "ghost").await;
    assert_eq!((family.parent, family.children.len()), (None, 7));
    let family = family_of(&posts, "nobody").await;
    assert_eq!((family.parent, family.children.len()), (None, 0));
}

#[tokio::test]
async fn both_sides_of_a_join_ride_an_index_as_explain_shows() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "join_explain").await;
    let (_, posts) = seed(&db).await;
    let ada = "user_7".to_owned();

    // A parent with its newest 10: the children's side is the reference's
    // page (LIMIT > FETCH > IXSCAN, 10 keys); the parent's side one `_id`.
    let plan = posts
        .children(Post::FIELDS.author_id, &ada)
        .page_size(10)
        .with_parent()
        .explain()
        .await
        .unwrap();
    println!("children side: {}", plan.children);
    println!("parents side:  {}", plan.parents);
    println!("$lookup stage: {:?}", plan.lookup);
    assert_eq!(
        plan.children.stages,
        ["LIMIT", "FETCH", "IXSCAN(authorId_1_at_-1__id_-1)"],
        "{}",
        plan.children
    );
    assert_eq!(
        (plan.children.returned, plan.children.keys_examined),
        (10, 10)
    );
    assert!(
        !plan.parents.is_collscan() && plan.parents.stages.iter().any(|s| s.contains("_id_")),
        "{}",
        plan.parents
    );
    assert_eq!((plan.parents.returned, plan.parents.docs_examined), (1, 1));
    let lookup = plan
        .lookup
        .expect("the aggregate's explain has a $lookup stage");
    let stage = lookup.get_document("$lookup").unwrap();
    assert_eq!(stage.get_str("from").unwrap(), "users");
    assert_eq!(stage.get_str("foreignField").unwrap(), "_id");

    // A page of a query's children, 20: the children's side on the index
    // the guard found (here the reference's), the parents' side on `_id`.
    let plan = posts
        .find(Post::FIELDS.author_id.eq(&ada))
        .sort(Post::FIELDS.at.desc())
        .with_parents(Post::FIELDS.author_id)
        .explain(20)
        .await
        .unwrap();
    println!("pairs, children side: {}", plan.children);
    println!("pairs, parents side:  {}", plan.parents);
    assert!(!plan.children.is_collscan() && !plan.children.sorts_in_memory());
    assert_eq!(plan.children.returned, 20);
    assert!(!plan.parents.is_collscan(), "{}", plan.parents);
}

#[tokio::test]
async fn an_unindexed_join_is_refused_before_anything_is_sent() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "join_unindexed").await;
    let (_, posts) = seed(&db).await;
    log.clear();

    // `title` leads no index of `Post`.
    let err = posts
        .find(Post::FIELDS.title.eq("Post 7"))
        .with_parents(Post::FIELDS.author_id)
        .page(10)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    let err = posts
        .find(Post::FIELDS.title.eq("Post 7"))
        .with_parents(Post::FIELDS.author_id)
        .explain(10)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    assert_eq!(log.count(), 0, "nothing sent: {:?}", log.names());
}

#[tokio::test]
async fn a_join_before_setup_is_refused_for_its_missing_index() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "join_no_index").await;
    let posts = Repo::<Post>::new(&db);
    posts.insert(&post(1, "user_1", BASE_MS)).await.unwrap();
    let ada = "user_1".to_owned();
    let err = posts
        .find(Post::FIELDS.author_id.eq(&ada))
        .sort(Post::FIELDS.at.desc())
        .with_parents(Post::FIELDS.author_id)
        .page(10)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::MissingIndex { .. }), "{err}");
    let err = posts
        .children(Post::FIELDS.author_id, &ada)
        .with_parent()
        .page()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::MissingIndex { .. }), "{err}");
}

#[tokio::test]
async fn a_join_in_a_transaction_sees_its_own_writes() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "join_session").await;
    let (users, posts) = seed(&db).await;
    let mut session = client.start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    users.insert(&user(77)).session(&mut session).await.unwrap();
    posts
        .insert(&post(9000, "user_77", BASE_MS + 10_000_000))
        .session(&mut session)
        .await
        .unwrap();
    let id = "user_77".to_owned();
    let page = posts
        .find(Post::FIELDS.author_id.eq(&id))
        .sort(Post::FIELDS.at.desc())
        .session(&mut session)
        .with_parents(Post::FIELDS.author_id)
        .page(5)
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
    assert_eq!(
        page.items[0].1.as_ref().map(|u| u.id.as_str()),
        Some("user_77")
    );
    let family = posts
        .children(Post::FIELDS.author_id, &id)
        .with_parent()
        .page()
        .session(&mut session)
        .await
        .unwrap();
    assert_eq!(family.children.len(), 1);
    session.abort_transaction().await.unwrap();
    let family = posts
        .children(Post::FIELDS.author_id, &id)
        .with_parent()
        .page()
        .await
        .unwrap();
    assert_eq!((family.parent, family.children.len()), (None, 0));
}
