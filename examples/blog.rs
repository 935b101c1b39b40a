//! Seed 000, one-to-one and one-to-many, with the seed's own data: 1,000
//! `users` with an embedded `profile`, 20,000 `posts` that reference their
//! author. Shows the plan of "posts of user_42" before and after setup
//! creates the reference index, then keyset pages on that index.
//!
//! `cargo run --example blog` (uses `MONGODB_URI`, or starts a test server).

mod common;
mod models;

use common::{expect_plan, heading, show_plan, Result};
use models::blog::{Post, Profile, User};
use schema_core::bson::{doc, Bson, DateTime};
use schema_core::prelude::*;
use schema_core::{explain_find, FindShape};
use schema_core::{Page, Schema};

const DATABASE: &str = "seed000_blog";
const USERS: usize = 1000;
const POSTS: usize = 20_000;

/// `user_i` as in the seed.
fn user(i: usize) -> User {
    User {
        id: format!("user_{i}"),
        email: format!("u{i}@example.test"),
        profile: Profile {
            display_name: format!("User {i}"),
            bio: "Writes algorithms.".into(),
            joined_year: 2020 + (i % 7) as i32,
        },
    }
}

/// `post_i` as in the seed: author `user_(i % 1000)`, one minute apart.
fn post(i: usize) -> Post {
    Post {
        id: format!("post_{i}"),
        author_id: format!("user_{}", i % USERS),
        title: format!("Post {i}"),
        tags: vec!["mongodb".into(), "modeling".into(), format!("tag{}", i % 5)],
        at: DateTime::from_millis(1_700_000_000_000 + i as i64 * 60_000),
    }
}

#[tokio::main]
async fn main() -> Result {
    let (_client, db) = common::fresh_database(DATABASE).await?;
    let schema = Schema::new().with::<User>().with::<Post>();
    let users = Repo::<User>::new(&db);
    let posts = Repo::<Post>::new(&db);

    heading("The seed's data, written before setup (as the seed does)");
    users
        .insert_many(&(0..USERS).map(user).collect::<Vec<_>>())
        .await?;
    let all: Vec<Post> = (0..POSTS).map(post).collect();
    for chunk in all.chunks(5000) {
        posts.insert_many(chunk).await?;
    }
    let (n_users, n_posts) = (
        users.count(Filter::all()).scan().await?,
        posts.count(Filter::all()).scan().await?,
    );
    println!("users: {n_users} | posts: {n_posts}");
    assert_eq!((n_users, n_posts), (USERS as u64, POSTS as u64));

    heading("One-to-one: the profile is embedded, one read returns it");
    let id = "user_42".to_owned();
    let u = users.get(&id).await?.ok_or("user_42 is missing")?;
    println!("{}", schema_core::bson::serialize_to_document(&u)?);
    println!("one read returns the profile: {}", u.profile.display_name);
    assert_eq!(u.profile.display_name, "User 42");

    heading("One-to-many, few and bounded: a post's tags are embedded");
    let p7 = posts
        .get(&"post_7".to_owned())
        .await?
        .ok_or("post_7 is missing")?;
    println!(
        "embedded tags (bounded, max {}): {:?}",
        Post::FIELDS.tags.max(),
        p7.tags
    );
    assert_eq!(p7.tags, ["mongodb", "modeling", "tag2"]);

    heading("One-to-many, growing: posts reference their author");
    const W: usize = 41;
    let by_author = Post::FIELDS.author_id.field().eq(&id).into_document()?;
    let newest_first = doc! { Post::FIELDS.at.name(): -1 };
    let before = explain_find(
        &db,
        Post::COLLECTION,
        &FindShape {
            filter: by_author.clone(),
            ..FindShape::default()
        },
    )
    .await?;
    show_plan("posts of user_42, before setup (no index)", W, &before);
    expect_plan(&before, &["COLLSCAN"], 20, 0, POSTS as u64);

    println!();
    common::setup(&db, &schema).await?;
    println!();

    let with_index = explain_find(
        &db,
        Post::COLLECTION,
        &FindShape {
            filter: by_author,
            sort: Some(newest_first),
            ..FindShape::default()
        },
    )
    .await?;
    show_plan("posts of user_42, with the index of setup", W, &with_index);
    expect_plan(
        &with_index,
        &["FETCH", "IXSCAN(authorId_1_at_-1__id_-1)"],
        20,
        20,
        20,
    );

    heading("Keyset pages on the index: Repo::children(...).page_size(10)");
    let children = posts.children(Post::FIELDS.author_id, &id).page_size(10);
    let plan1 = children.explain().await?;
    show_plan("page 1 (10 newest)", W, &plan1);
    expect_plan(
        &plan1,
        &["LIMIT", "FETCH", "IXSCAN(authorId_1_at_-1__id_-1)"],
        10,
        10,
        10,
    );
    let page1 = children.page().await?;
    let cursor = page1.next.clone().ok_or("page 1 should be full")?;
    let page2_query = children.clone().after(cursor.clone());
    let plan2 = page2_query.explain().await?;
    show_plan("page 2 (after the cursor of page 1)", W, &plan2);
    // Page 2 starts at the last key of page 1: `at <= last` bounds the scan,
    // `at < last OR _id < id` excludes that post (ties on `at` come by
    // `_id`, never skipped): one key more than it returns.
    assert_eq!(plan2.stages, plan1.stages, "{plan2}");
    assert_eq!(plan2.returned, 10, "{plan2}");
    assert!(
        plan2.keys_examined <= 11 && plan2.docs_examined <= 11,
        "{plan2}"
    );
    let page2 = page2_query.page().await?;

    let ids = |page: &Page<Post>| page.items.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
    println!("page 1: {}", ids(&page1).join(" "));
    let at = match &cursor.last {
        Bson::DateTime(at) => at.try_to_rfc3339_string()?,
        other => other.to_string(),
    };
    println!("cursor: at={at} _id={} (a key, not an offset)", cursor.id);
    println!("page 2: {}", ids(&page2).join(" "));
    // user_42 wrote post_42, post_1042, ..., post_19042, one a minute apart.
    let expected: Vec<String> = (0..20)
        .rev()
        .map(|k| format!("post_{}", k * 1000 + 42))
        .collect();
    assert_eq!(ids(&page1), expected[..10]);
    assert_eq!(ids(&page2), expected[10..]);
    let rest = children
        .clone()
        .after(page2.next.clone().ok_or("page 2 is full")?);
    assert!(rest.page().await?.items.is_empty(), "user_42 has 20 posts");
    println!(
        "count of user_42's posts (on the index): {}",
        children.count().await?
    );

    heading("The authors of a page: one query, never one per post");
    let (counting, log) = common::counting_client().await?;
    let counted = Repo::<User>::new(&counting.database(DATABASE));
    let mixed: Vec<Post> = (0..10).map(post).collect();
    log.clear();
    let authors = counted.parents_of(Post::FIELDS.author_id, &mixed).await?;
    let sent = log.operations();
    println!(
        "authors of post_0..post_9: {} users loaded with {:?}",
        authors.iter().flatten().count(),
        sent
    );
    assert_eq!(sent, ["find"]);
    for (post, author) in mixed.iter().zip(&authors) {
        assert_eq!(author.as_ref().map(|a| &a.id), Some(&post.author_id));
    }
    println!("\nblog: ok");
    Ok(())
}
