//! One-to-many by reference from the child (seed 000's users and posts):
//! keyset pages ride the `{authorId: 1, at: -1, _id: -1}` index that setup creates,
//! never skip or repeat a post while posts are being inserted, count with
//! the index, and load the authors of a page with one query.

use crate::models;
use crate::support;

use models::{Post, User};
use schema_core::prelude::*;
use schema_core::{Error, Schema};

const BASE_MS: i64 = 1_700_000_000_000;

fn post(i: usize, author: &str, at_ms: i64) -> Post {
    Post::sample(i, author, at_ms)
}

fn user(i: usize) -> User {
    User::sample(i)
}

/// Seed 000's data: 1,000 users, 20,000 posts (20 per author), set up.
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
        .insert_many(&(0..1000).map(user).collect::<Vec<_>>())
        .await
        .unwrap();
    let all: Vec<Post> = (0..20_000)
        .map(|i| {
            post(
                i,
                &format!("user_{}", i % 1000),
                BASE_MS + i as i64 * 60_000,
            )
        })
        .collect();
    for chunk in all.chunks(5000) {
        posts.insert_many(chunk).await.unwrap();
    }
    (users, posts)
}

#[tokio::test]
async fn page_one_is_limit_fetch_ixscan_with_keys_docs_returned_equal_to_the_page_size() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "paging_explain").await;
    let (_, posts) = seed(&db).await;
    let author = "user_42".to_owned();

    let children = posts
        .children(Post::FIELDS.author_id, &author)
        .page_size(10);
    let plan = children.explain().await.unwrap();
    println!("page 1 (10 newest): {plan}");
    assert_eq!(
        plan.stages,
        ["LIMIT", "FETCH", "IXSCAN(authorId_1_at_-1__id_-1)"],
        "{plan}"
    );
    assert_eq!(
        (plan.returned, plan.keys_examined, plan.docs_examined),
        (10, 10, 10),
        "{plan}"
    );

    // Page 2 still rides the index with no SORT stage; it reads the last
    // post of page 1 again (excluded by the keyset bound) and nothing else.
    let page1 = children.page().await.unwrap();
    let plan2 = children
        .clone()
        .after(page1.next.clone().unwrap())
        .explain()
        .await
        .unwrap();
    println!("page 2: {plan2}");
    assert_eq!(
        plan2.stages,
        ["LIMIT", "FETCH", "IXSCAN(authorId_1_at_-1__id_-1)"],
        "{plan2}"
    );
    assert_eq!(plan2.returned, 10, "{plan2}");
    assert_eq!(plan2.keys_examined, 11, "{plan2}");
    assert_eq!(plan2.docs_examined, 11, "{plan2}");

    // Oldest first: the same index, scanned backwards.
    let reversed = children.clone().reversed().explain().await.unwrap();
    assert!(!reversed.sorts_in_memory(), "{reversed}");
    assert_eq!(
        (reversed.returned, reversed.keys_examined),
        (10, 10),
        "{reversed}"
    );

    // The count helper: 20 posts per author.
    assert_eq!(children.count().await.unwrap(), 20);
}

#[tokio::test]
async fn keyset_pages_concatenate_to_the_authors_posts_while_posts_are_inserted() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "paging_concat").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);
    let author = "ada".to_owned();

    // 40 posts for `ada` (with runs of equal timestamps, so ties span pages)
    // among posts of other authors.
    let mut seeded = Vec::new();
    for i in 0..40 {
        let at = BASE_MS + (i / 4) as i64 * 1000; // four posts per timestamp
        seeded.push(post(i, &author, at));
        seeded.push(post(1000 + i, "bob", at));
    }
    posts.insert_many(&seeded).await.unwrap();
    let mut expected: Vec<Post> = seeded
        .iter()
        .filter(|p| p.author_id == author)
        .cloned()
        .collect();
    expected.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| b.id.cmp(&a.id)));

    let mut seen: Vec<Post> = Vec::new();
    let mut cursor = None;
    let mut inserted = 0;
    loop {
        let mut query = posts.children(Post::FIELDS.author_id, &author).page_size(3);
        if let Some(c) = cursor.take() {
            query = query.after(c);
        }
        let page = query.page().await.unwrap();
        assert!(page.items.len() <= 3);
        seen.extend(page.items);
        // Between page reads, new posts arrive: newer ones for `ada`, and
        // posts of other authors with every timestamp.
        posts
            .insert(&post(
                5000 + inserted,
                &author,
                BASE_MS + 10_000_000 + inserted as i64,
            ))
            .await
            .unwrap();
        posts
            .insert(&post(
                6000 + inserted,
                "bob",
                BASE_MS + (inserted as i64 % 10) * 1000,
            ))
            .await
            .unwrap();
        inserted += 1;
        match page.next {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }

    let ids = |v: &[Post]| v.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
    let mut unique = ids(&seen);
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), seen.len(), "no post appears twice");
    assert_eq!(seen.len(), expected.len(), "no post is skipped");
    // Exactly the author's posts that existed when paging began (the new
    // ones are newer than the first page), newest first, equal timestamps
    // by `_id` descending.
    assert_eq!(ids(&seen), ids(&expected));
}

#[tokio::test]
async fn a_page_is_one_find_and_its_authors_load_with_one_more() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "paging_commands").await;
    Schema::new()
        .with::<User>()
        .with::<Post>()
        .sync(&db)
        .await
        .unwrap();
    let users = Repo::<User>::new(&db);
    let posts = Repo::<Post>::new(&db);
    users
        .insert_many(&(0..3).map(user).collect::<Vec<_>>())
        .await
        .unwrap();
    let all: Vec<Post> = (0..30)
        .map(|i| post(i, &format!("user_{}", i % 4), BASE_MS + i as i64))
        .collect();
    posts.insert_many(&all).await.unwrap();

    log.clear();
    let children = posts
        .children(Post::FIELDS.author_id, &"user_1".to_owned())
        .page_size(5);
    let page = children.page().await.unwrap();
    assert_eq!(
        log.operations(),
        ["listIndexes", "find"],
        "the repository's first page checks once that the index exists"
    );
    assert_eq!(page.items.len(), 5);
    log.clear();
    let page = children
        .clone()
        .after(page.next.unwrap())
        .page()
        .await
        .unwrap();
    assert_eq!(log.operations(), ["find"], "a page is one command");
    assert_eq!(page.items.len(), 3);

    // A page of many authors' posts: their authors in one `$in` query;
    // `user_3` does not exist.
    let mixed: Vec<Post> = all[..8].to_vec();
    log.clear();
    let authors = users
        .parents_of(Post::FIELDS.author_id, &mixed)
        .await
        .unwrap();
    assert_eq!(log.operations(), ["find"], "one query, not one per post");
    assert_eq!(authors.len(), mixed.len());
    for (post, author) in mixed.iter().zip(&authors) {
        match author {
            Some(user) => assert_eq!(user.id, post.author_id),
            None => assert_eq!(post.author_id, "user_3"),
        }
    }

    log.clear();
    let n = posts
        .children(Post::FIELDS.author_id, &"user_1".to_owned())
        .count()
        .await
        .unwrap();
    assert_eq!(n, 8);
    assert_eq!(log.operations(), ["aggregate"], "a count is one command");
}

#[tokio::test]
async fn paging_without_the_index_is_refused_with_a_clear_error() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "paging_no_index").await;
    let posts = Repo::<Post>::new(&db);
    posts.insert(&post(1, "ada", BASE_MS)).await.unwrap();
    let err = posts
        .children(Post::FIELDS.author_id, &"ada".to_owned())
        .page()
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::MissingIndex { .. }), "{message}");
    assert!(message.contains("authorId_1_at_-1__id_-1"), "{message}");
    assert!(message.contains("setup"), "{message}");
}
