//! One collection, one model: two models declared on the same collection are
//! refused by `Schema::check`, `plan` and `sync` with an error naming both and
//! the collection, before any command is sent. The same model registered
//! twice is kept once. Edge collections (`Through`) and history collections
//! (the subset pattern) are models like any other here.

use crate::support;

use bson::DateTime;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    #[embed(max = 3, keep = "newest", history = Comment)]
    comments: Vec<String>,
}

/// Another model on `posts`: today its validator or `Post`'s silently wins.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "posts")]
struct Article {
    #[serde(rename = "_id")]
    id: String,
    headline: String,
    at: DateTime,
}

/// The history collection of `Post::comments`.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "comments")]
struct Comment {
    #[serde(rename = "_id")]
    id: String,
    text: String,
}

/// A history model declared, by mistake, on its parent's collection.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "posts")]
struct PostHistory {
    #[serde(rename = "_id")]
    id: String,
    text: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "groups")]
struct Group {
    #[serde(rename = "_id")]
    id: String,
}

mod billing {
    use schema_core::prelude::*;
    use serde::{Deserialize, Serialize};

    /// Same Rust name as `crm::User`, same collection, other fields.
    #[derive(Document, Serialize, Deserialize, Debug, Clone)]
    #[document(collection = "users")]
    pub struct User {
        #[serde(rename = "_id")]
        pub id: String,
        pub plan: String,
    }
}

mod crm {
    use schema_core::prelude::*;
    use serde::{Deserialize, Serialize};

    #[derive(Document, Serialize, Deserialize, Debug, Clone)]
    #[document(collection = "users")]
    pub struct User {
        #[serde(rename = "_id")]
        pub id: String,
        pub email: String,
    }
}

/// Runs `check`, `plan` and `sync` on a fresh database through a client that
/// records its commands; asserts that all three refuse with the same error
/// and that not one command was sent (not even a read). Returns the error.
async fn refused_before_sending(schema: Schema, test: &str) -> Error {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, test).await;
    log.clear();
    let checked = schema.check().unwrap_err();
    let planned = schema.plan(&db).await.unwrap_err();
    let synced = schema.sync(&db).await.unwrap_err();
    assert_eq!(checked.to_string(), planned.to_string());
    assert_eq!(checked.to_string(), synced.to_string());
    assert_eq!(log.operations(), Vec::<String>::new(), "nothing sent");
    assert_eq!(
        db.list_collection_names().await.unwrap(),
        Vec::<String>::new(),
        "nothing created"
    );
    checked
}

#[tokio::test]
async fn two_models_on_one_collection_are_refused_naming_both_before_anything_is_sent() {
    let schema = Schema::new()
        .with::<Post>()
        .with::<Comment>()
        .with::<Article>();
    let err = refused_before_sending(schema, "clash_two_models").await;
    assert!(
        matches!(
            err,
            Error::CollectionClash {
                collection: "posts",
                first: "Post",
                second: "Article"
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "two models, `Post` and `Article`, are declared on the collection `posts`: a \
         collection has one validator and one set of indexes, so the writes of one model \
         would be refused by the rules of the other; give each model its own collection; \
         nothing was sent"
    );
}

#[tokio::test]
async fn two_types_with_one_name_on_one_collection_are_refused() {
    let schema = Schema::new().with::<billing::User>().with::<crm::User>();
    let err = refused_before_sending(schema, "clash_same_name").await;
    assert!(
        matches!(
            err,
            Error::CollectionClash {
                collection: "users",
                first: "User",
                second: "User"
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().starts_with(
            "two different models named `User` are declared on the collection `users`"
        ),
        "{err}"
    );
}

#[tokio::test]
async fn a_history_model_on_its_parents_collection_is_refused() {
    let schema = Schema::new().with::<Post>().with::<PostHistory>();
    let err = refused_before_sending(schema, "clash_history").await;
    assert!(
        matches!(
            err,
            Error::CollectionClash {
                collection: "posts",
                first: "Post",
                second: "PostHistory"
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_edge_collection_named_like_a_models_collection_is_refused() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "clash_through_handle").await;
    // The edges would land in `posts`, next to the posts themselves.
    let edges = Through::<Post, Group>::new(&db, "posts", "postId", "groupId");
    let mut schema = Schema::new().with::<Post>().with::<Group>();
    schema = schema.with_info(edges.model_info());
    let err = refused_before_sending(schema, "clash_through").await;
    assert!(
        matches!(
            err,
            Error::CollectionClash {
                collection: "posts",
                first: "Post",
                second: "posts"
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn the_same_model_or_edge_collection_registered_twice_is_kept_once() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "clash_twice").await;
    let edges = Through::<Post, Group>::new(&db, "postGroups", "postId", "groupId");
    let mut schema = Schema::new()
        .with::<Post>()
        .with::<Comment>()
        .with::<Group>()
        .with::<Post>();
    schema = schema.with::<Comment>();
    schema = schema.with_info(edges.model_info());
    schema = schema.with_info(edges.model_info());
    let collections: Vec<&str> = schema.models().iter().map(|m| m.collection).collect();
    assert_eq!(collections, ["posts", "comments", "groups", "postGroups"]);
    schema.check().unwrap();
    schema.sync(&db).await.unwrap();
    assert!(schema.plan(&db).await.unwrap().is_empty());

    // Each model's own rules are on its collection: both write.
    let posts = Repo::<Post>::new(&db);
    let post = Post {
        id: "p1".into(),
        title: "t".into(),
        comments: Vec::new(),
    };
    posts.insert(&post).await.unwrap();
    let comment = Comment {
        id: "c1".into(),
        text: "hi".into(),
    };
    posts
        .embed(Post::FIELDS.comments)
        .push_keeping(&"p1".to_owned(), &"hi".to_owned(), &comment)
        .await
        .unwrap();
    edges
        .link(&"p1".to_owned(), &"g1".to_owned())
        .await
        .unwrap();
    assert_eq!(
        Repo::<Comment>::new(&db)
            .get(&"c1".to_owned())
            .await
            .unwrap(),
        Some(comment)
    );
}
