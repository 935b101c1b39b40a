//! Text indexes (`#[document(index(keys(title = "text", body = "text"),
//! weights(title = 10)))]`): the index the model declares, and the index
//! guard letting `$text` through only on a model with one, with no other
//! sort, and never counting on a text index for anything else.
//!
//! The test server neither builds text indexes nor runs `$text` ("not
//! supported by the Rust storage engine yet"), so what a server lists is
//! checked against a `listIndexes` reply in the MongoDB manual's shape in
//! `schema_core::text_index`, and here the guard's side only: a query the
//! guard lets through goes on to the check that the server has the index,
//! which fails with `MissingIndex` on this server.

use crate::support;

use bson::doc;
use schema_core::prelude::*;
use schema_core::{Error, Filter, IndexKind};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(
    collection = "articles",
    index(keys(title = "text", body = "text"), weights(title = 10), default_language = "english"),
    index(keys(at = desc))
)]
struct Article {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    body: String,
    at: i64,
}

/// No text index.
#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "notes", index(keys(title = asc)))]
struct Note {
    #[serde(rename = "_id")]
    id: String,
    title: String,
}

fn search(words: &str) -> bson::Document {
    doc! { "$text": { "$search": words } }
}

#[test]
fn the_text_index_as_declared() {
    let index = &Article::indexes()[0];
    assert_eq!(index.kind, IndexKind::Text);
    assert_eq!(index.name, "title_text_body_text");
    assert_eq!(
        index.key_document(),
        doc! { "title": "text", "body": "text" }
    );
    assert_eq!(
        index.to_string(),
        "title_text_body_text { \"title\": \"text\", \"body\": \"text\" } weights={body: 1, title: 10} default_language=english"
    );
}

#[tokio::test]
async fn only_the_text_index_serves_a_text_search() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "text_indexes").await;
    let articles = Repo::<Article>::new(&db);

    // The guard counts on the text index: the query goes on to the server
    // check, which finds no such index on this server.
    let err = articles
        .find(Filter::from(search("rust")))
        .all()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::MissingIndex { index, .. } if index == "title_text_body_text"),
        "{err}"
    );
    let title = "Rust".to_owned();
    let err = articles
        .find(Filter::from(search("rust")) & Article::FIELDS.title.eq(&title))
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::MissingIndex { .. }), "{err}");

    // Never for anything else, and no sort beside `$text`.
    log.clear();
    let by_title = articles.find(Article::FIELDS.title.eq(&title)).all().await;
    refused(&log, by_title, "title");
    let sorted = articles
        .find(Filter::from(search("rust")))
        .sort(Article::FIELDS.at.desc())
        .all()
        .await;
    refused(&log, sorted, "a sort beside `$text`");

    // A model without a text index: refused, saying what to declare.
    let notes = Repo::<Note>::new(&db);
    let err = notes.find(Filter::from(search("rust"))).all().await;
    refused(&log, err, "`$text` without a text index");
}

/// The guard refused the query, its message holding `says`, and nothing
/// was sent since `log` was last cleared.
fn refused<T: std::fmt::Debug>(
    log: &schema_testkit::CommandLog,
    result: Result<T, Error>,
    says: &str,
) {
    let err = result.unwrap_err();
    assert!(matches!(err, Error::Unindexed { .. }), "{err}");
    assert!(err.to_string().contains(says), "{err}");
    assert!(log.take().is_empty(), "nothing sent");
}
