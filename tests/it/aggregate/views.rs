//! `project::<View>()` and `lookup` through a declared reference, against
//! the same pipelines sent raw through the driver, on seed 000's users and
//! posts.

use crate::example_models::blog::{Post, Profile, User};
use crate::support;

use bson::{doc, DateTime, Document as BsonDocument};
use futures_util::TryStreamExt;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::Deserialize;

/// A post's headline: two of its fields, under their stored names.
#[derive(Projection, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[projection(of = Post)]
struct Headline {
    author_id: String,
    title: String,
    at: DateTime,
}

fn users() -> Vec<User> {
    (0..6)
        .map(|i| User {
            id: format!("u{i}"),
            email: format!("u{i}@example.com"),
            profile: Profile {
                display_name: format!("user {i}"),
                bio: String::new(),
                joined_year: 2020 + i,
            },
        })
        .collect()
}

/// 120 posts of 7 authors, `u6` having no user document.
fn posts() -> Vec<Post> {
    (0..120i64)
        .map(|i| Post {
            id: format!("p{i:03}"),
            author_id: format!("u{}", i % 7),
            title: format!("title {i}"),
            tags: vec![format!("t{}", i % 3)],
            at: DateTime::from_millis(1_700_000_000_000 + (i * 7_919) % 120 * 60_000),
        })
        .collect()
}

async fn raw_docs(
    db: &mongodb::Database,
    collection: &str,
    pipeline: Vec<BsonDocument>,
) -> Vec<BsonDocument> {
    db.collection::<BsonDocument>(collection)
        .aggregate(pipeline)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

#[tokio::test]
async fn project_then_the_views_fields_match_a_raw_pipeline() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "agg_project").await;
    Schema::new().with::<Post>().sync(&db).await.unwrap();
    let repo = Repo::<Post>::new(&db);
    repo.insert_many(&posts()).await.unwrap();
    let (f, h) = (Post::FIELDS, Headline::FIELDS);
    let ada = "u3".to_owned();
    let since = DateTime::from_millis(1_700_000_000_000 + 30 * 60_000);

    // On the reference's index, then the view, then a filter and a sort on
    // the view's own fields.
    let typed: Vec<Headline> = repo
        .aggregate()
        .filter(f.author_id.eq(&ada))
        .project::<Headline>()
        .filter(h.at.gte(&since))
        .sort(h.title.asc())
        .limit(8)
        .all()
        .await
        .unwrap();
    let by_hand: Vec<Headline> = raw_docs(
        &db,
        "posts",
        vec![
            doc! { "$match": { "authorId": "u3" } },
            doc! { "$project": { "authorId": 1, "title": 1, "at": 1, "_id": 0 } },
            doc! { "$match": { "at": { "$gte": since } } },
            doc! { "$sort": { "title": 1 } },
            doc! { "$limit": 8 },
        ],
    )
    .await
    .into_iter()
    .map(|d| bson::deserialize_from_document(d).unwrap())
    .collect();
    assert_eq!(typed, by_hand);
    assert!(!typed.is_empty() && typed.len() <= 8);
    assert!(typed.iter().all(|v| v.author_id == ada && v.at >= since));

    // The guard still checks what leads: a view does not make a scan pass.
    log.clear();
    let err = repo
        .aggregate()
        .filter(f.title.eq("title 3"))
        .project::<Headline>()
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    assert_eq!(log.operations(), Vec::<String>::new(), "nothing sent");
}

#[tokio::test]
async fn lookup_through_a_reference_matches_a_raw_pipeline() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "agg_lookup").await;
    Schema::new()
        .with::<User>()
        .with::<Post>()
        .sync(&db)
        .await
        .unwrap();
    Repo::<User>::new(&db).insert_many(&users()).await.unwrap();
    let repo = Repo::<Post>::new(&db);
    repo.insert_many(&posts()).await.unwrap();
    let f = Post::FIELDS;

    // The newest ten posts of two authors, one without a user document,
    // each with its author.
    let two = ["u2".to_owned(), "u6".to_owned()];
    let typed: Vec<(Post, Option<User>)> = repo
        .aggregate()
        .filter(f.author_id.is_in(&two))
        .sort(f.at.desc())
        .sort(f.id.desc())
        .scan() // a sort across authors: the index orders within one
        .limit(10)
        .lookup(f.author_id)
        .all()
        .await
        .unwrap();
    let by_hand: Vec<(Post, Option<User>)> = raw_docs(
        &db,
        "posts",
        vec![
            doc! { "$match": { "authorId": { "$in": ["u2", "u6"] } } },
            doc! { "$sort": { "at": -1, "_id": -1 } },
            doc! { "$limit": 10 },
            doc! { "$lookup": { "from": "users", "localField": "authorId", "foreignField": "_id", "as": "author" } },
        ],
    )
    .await
    .into_iter()
    .map(|mut d| {
        let author = d.remove("author").unwrap();
        let author = author.as_array().unwrap().first().map(|u| {
            bson::deserialize_from_document::<User>(u.as_document().unwrap().clone()).unwrap()
        });
        (bson::deserialize_from_document::<Post>(d).unwrap(), author)
    })
    .collect();
    assert_eq!(typed, by_hand);
    assert_eq!(typed.len(), 10);
    assert!(typed
        .iter()
        .all(|(p, u)| u.as_ref().map(|u| &u.id) == (p.author_id != "u6").then_some(&p.author_id)));
    assert!(typed.iter().any(|(_, u)| u.is_none()));

    // On the reference's index for one author, its plan the index's.
    let one = "u2".to_owned();
    let newest = || {
        repo.aggregate()
            .filter(f.author_id.eq(&one))
            .sort(f.at.desc())
            .sort(f.id.desc())
            .limit(3)
    };
    let joined = newest().lookup(f.author_id).all().await.unwrap();
    let plain = newest().all().await.unwrap();
    assert_eq!(
        joined.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        plain.iter().collect::<Vec<_>>()
    );
    assert!(joined
        .iter()
        .all(|(_, u)| u.as_ref().is_some_and(|u| u.id == one)));
    let plan = newest().lookup(f.author_id).explain().await.unwrap();
    assert!(
        plan.shape().contains("IXSCAN(authorId_1_at_-1__id_-1)"),
        "{plan}"
    );
}
