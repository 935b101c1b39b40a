//! The typed repository: every method against the real server, on its own
//! and given the caller's session, composed into the caller's transaction.

use crate::models;
use crate::support;

use bson::{doc, DateTime};
use models::{Post, User};
use schema_core::code;
use schema_core::prelude::*;
use schema_core::transaction;
use schema_core::{Error, Schema};

fn post(id: &str, author: &str, title: &str) -> Post {
    Post {
        id: id.to_owned(),
        author_id: author.to_owned(),
        title: title.to_owned(),
        tags: vec!["a".into()],
        at: DateTime::from_millis(1_700_000_000_000),
    }
}

fn s(v: &str) -> String {
    v.to_owned()
}

#[tokio::test]
async fn insert_get_replace_update_find_count_delete() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "repo_crud").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let posts = Repo::<Post>::new(&db);

    log.clear();
    posts.insert(&post("p1", "ada", "One")).await.unwrap();
    assert_eq!(log.operations(), ["insert"]);
    posts
        .insert_many(&[post("p2", "ada", "Two"), post("p3", "bob", "Three")])
        .await
        .unwrap();

    log.clear();
    assert_eq!(posts.get(&s("p1")).await.unwrap().unwrap().title, "One");
    assert_eq!(log.operations(), ["find"]);
    assert!(posts.get(&s("nope")).await.unwrap().is_none());
    let mut two = posts
        .get_many(&[s("p1"), s("p3"), s("nope")])
        .await
        .unwrap();
    two.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(
        two.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["p1", "p3"]
    );

    assert!(posts.replace(&post("p1", "ada", "Uno")).await.unwrap());
    assert!(!posts.replace(&post("zz", "ada", "Nobody")).await.unwrap());
    assert!(posts
        .update(&s("p2"), Post::FIELDS.title.set(&s("Dos")))
        .await
        .unwrap());
    assert!(!posts
        .update(&s("nope"), Post::FIELDS.title.set(&s("x")))
        .await
        .unwrap());

    let adas = posts
        .find(Post::FIELDS.author_id.eq(&s("ada")))
        .all()
        .await
        .unwrap();
    let mut titles: Vec<_> = adas.iter().map(|p| p.title.clone()).collect();
    titles.sort();
    assert_eq!(titles, ["Dos", "Uno"]);
    assert_eq!(
        posts
            .find_one(Post::FIELDS.author_id.eq(&s("bob")))
            .await
            .unwrap()
            .unwrap()
            .id,
        "p3"
    );
    assert_eq!(posts.count(doc! {}).scan().await.unwrap(), 3);
    assert_eq!(
        posts
            .count(Post::FIELDS.author_id.is_in([&s("ada"), &s("bob")]))
            .await
            .unwrap(),
        3
    );

    // A model without two-sided links deletes with one command.
    log.clear();
    assert!(posts.delete(&s("p3")).await.unwrap());
    assert_eq!(log.operations(), ["delete"]);
    assert!(!posts.delete(&s("p3")).await.unwrap());

    // The validator still holds: a raw `$push` past `max = 10` is refused.
    let eleven: Vec<String> = (0..11).map(|i| i.to_string()).collect();
    let err = posts
        .update(&s("p1"), doc! { "$push": { "tags": { "$each": eleven } } })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(code::DOCUMENT_VALIDATION_FAILURE), "{err}");
}

#[tokio::test]
async fn actions_given_a_session_compose_into_the_callers_transaction() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "repo_txn").await;
    Schema::new()
        .with::<Post>()
        .with::<User>()
        .sync(&db)
        .await
        .unwrap();
    let posts = Repo::<Post>::new(&db);
    posts.insert(&post("p1", "ada", "One")).await.unwrap();

    // Committed: everything the body did.
    let seen = transaction(&client)
        .run(async |session| {
            posts
                .insert(&post("p2", "ada", "Two"))
                .session(session)
                .await?;
            posts
                .update(&s("p1"), Post::FIELDS.title.set(&s("Uno")))
                .session(session)
                .await?;
            posts
                .embed(Post::FIELDS.tags)
                .push(&s("p1"), &s("b"))
                .session(session)
                .await?;
            let n = posts
                .count(Post::FIELDS.author_id.eq(&s("ada")))
                .session(session)
                .await?;
            let mine = posts.get(&s("p2")).session(session).await?;
            let page = posts
                .children(Post::FIELDS.author_id, &s("ada"))
                .page()
                .session(session)
                .await?;
            Ok((n, mine.is_some(), page.items.len()))
        })
        .await
        .unwrap();
    assert_eq!(seen, (2, true, 2), "the body reads its own writes");
    let p1 = posts.get(&s("p1")).await.unwrap().unwrap();
    assert_eq!((p1.title.as_str(), p1.tags.len()), ("Uno", 2));

    // Aborted: nothing the body did.
    let err = transaction(&client)
        .run(async |session| {
            posts.delete(&s("p1")).session(session).await?;
            posts
                .replace(&post("p2", "bob", "Changed"))
                .session(session)
                .await?;
            posts
                .insert_many(&[post("p3", "bob", "Three")])
                .session(session)
                .await?;
            let _ = posts.find(doc! {}).scan().session(session).all().await?;
            let _ = posts.find_one(doc! {}).scan().session(session).await?;
            Err::<(), _>(Error::Model("changed my mind".into()))
        })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("changed my mind"));
    assert!(posts.get(&s("p1")).await.unwrap().is_some());
    assert_eq!(posts.get(&s("p2")).await.unwrap().unwrap().title, "Two");
    assert_eq!(posts.count(doc! {}).scan().await.unwrap(), 2);
}
