//! A value that has no BSON form (a `u64` above `i64::MAX`) is an
//! `Error::Serialize` naming the model and the field, returned before
//! anything is sent: never a `null` written by `set`, never a filter on
//! `null` that matches the documents whose field is null.

use crate::support;

use bson::{doc, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "counters", index(keys(hits = asc)))]
struct Counter {
    #[serde(rename = "_id")]
    id: String,
    hits: Option<u64>,
    #[embed(max = 4)]
    marks: Vec<u64>,
}

/// A model whose `_id` is a `u64`.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "tickets")]
struct Ticket {
    #[serde(rename = "_id")]
    id: u64,
    title: String,
}

/// The written value as Display shows it: it must not appear in a message.
const TOO_BIG: &str = "18446744073709551615";

/// Asserts `err` is `Serialize` for `field` of `model`, and says so without the value.
fn assert_names_field(err: &Error, model: &str, field: &str) {
    match err {
        Error::Serialize {
            model: m, field: f, ..
        } => {
            assert_eq!((*m, f.as_deref()), (model, Some(field)), "{err}");
        }
        other => panic!("expected Error::Serialize for `{field}`, got {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains(&format!("field `{field}` of a `{model}`")),
        "{message}"
    );
    assert!(message.contains("i64::MAX"), "says why: {message}");
    assert!(!message.contains(TOO_BIG), "no value: {message}");
}

fn counter(id: &str, hits: Option<u64>) -> Counter {
    Counter {
        id: id.to_owned(),
        hits,
        marks: vec![1],
    }
}

#[tokio::test]
async fn a_value_without_bson_form_is_an_error_naming_the_field_and_nothing_is_sent() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "serialize").await;
    Schema::new()
        .with::<Counter>()
        .with::<Ticket>()
        .sync(&db)
        .await
        .unwrap();
    let counters = Repo::<Counter>::new(&db);
    counters
        .insert_many(&[counter("c1", Some(5)), counter("c2", None)])
        .await
        .unwrap();
    let raw = db.collection::<BsonDocument>("counters");
    let stored = |id: &'static str| {
        let raw = raw.clone();
        async move {
            raw.find_one(doc! { "_id": id })
                .await
                .unwrap()
                .expect("stored")
        }
    };
    let before = (stored("c1").await, stored("c2").await);
    log.clear();

    // `set`: an error naming the field; the stored document is unchanged.
    let err = counters
        .update(&"c1".to_owned(), Counter::FIELDS.hits.set(&Some(u64::MAX)))
        .await
        .unwrap_err();
    assert_names_field(&err, "Counter", "hits");

    // `eq`, `is_in`: an error, not a filter on null (which matches `c2`).
    let err = counters
        .find(Counter::FIELDS.hits.eq(&Some(u64::MAX)))
        .await
        .unwrap_err();
    assert_names_field(&err, "Counter", "hits");
    let err = counters
        .count(Counter::FIELDS.hits.is_in([&Some(1), &Some(u64::MAX)]))
        .await
        .unwrap_err();
    assert_names_field(&err, "Counter", "hits");
    let err = counters
        .find_one(Counter::FIELDS.hits.eq(&Some(u64::MAX)))
        .await
        .unwrap_err();
    assert_names_field(&err, "Counter", "hits");

    // `contains` on an array, and the bounded push helpers.
    let err = counters
        .find(Counter::FIELDS.marks.contains(&u64::MAX))
        .await
        .unwrap_err();
    assert_names_field(&err, "Counter", "marks");
    let marks = counters.embed(Counter::FIELDS.marks);
    let err = marks.push(&"c1".to_owned(), &u64::MAX).await.unwrap_err();
    assert_names_field(&err, "Counter", "marks");
    let err = marks
        .push_many(&"c1".to_owned(), &[2, u64::MAX])
        .await
        .unwrap_err();
    assert_names_field(&err, "Counter", "marks");
    let err = marks.pull(&"c1".to_owned(), &u64::MAX).await.unwrap_err();
    assert_names_field(&err, "Counter", "marks");

    // A whole document: the field's path is named.
    let err = counters
        .insert(&counter("c3", Some(u64::MAX)))
        .await
        .unwrap_err();
    assert_names_field(&err, "Counter", "hits");

    // The `_id` filter of every by-id helper.
    let tickets = Repo::<Ticket>::new(&db);
    let err = tickets.get(&u64::MAX).await.unwrap_err();
    assert_names_field(&err, "Ticket", "_id");
    let err = tickets.get_many([&1, &u64::MAX]).await.unwrap_err();
    assert_names_field(&err, "Ticket", "_id");
    let err = tickets
        .update(&u64::MAX, Ticket::FIELDS.title.set(&"t".to_owned()))
        .await
        .unwrap_err();
    assert_names_field(&err, "Ticket", "_id");
    let err = tickets.delete(&u64::MAX).await.unwrap_err();
    assert_names_field(&err, "Ticket", "_id");

    // Nothing was sent, and nothing changed.
    assert_eq!(log.operations(), Vec::<String>::new());
    assert_eq!((stored("c1").await, stored("c2").await), before);
    assert_eq!(counters.count(doc! {}).scan().await.unwrap(), 2);

    // A value that fits still works, through the same builders.
    assert!(counters
        .update(&"c1".to_owned(), Counter::FIELDS.hits.set(&Some(7)))
        .await
        .unwrap());
    let found = counters
        .find(Counter::FIELDS.hits.eq(&Some(7)))
        .all()
        .await
        .unwrap();
    assert_eq!(found, [counter("c1", Some(7))]);
}

#[test]
fn a_typed_filter_hands_its_error_to_code_of_your_own() {
    let err = Counter::FIELDS
        .hits
        .eq(&Some(u64::MAX))
        .into_document()
        .unwrap_err();
    assert_names_field(&err, "Counter", "hits");
    assert_eq!(
        Counter::FIELDS.hits.set(&Some(3)).into_document().unwrap(),
        doc! { "$set": { "hits": 3_i64 } }
    );
}
