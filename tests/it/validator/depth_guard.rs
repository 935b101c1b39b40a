//! Building a validator never overflows the stack: a recursive type that the
//! compile-time check cannot see (recursion only through generic
//! sub-documents, or a hand-written `BsonSchema` that recurses through a
//! container behind `#[embed(unbounded)]`) makes `validator()` and
//! `Schema::with` panic with a message naming the recursion, instead of
//! aborting the process with a stack overflow.

use std::panic::{catch_unwind, UnwindSafe};

use schema_core::prelude::*;
use schema_core::Schema;
use schema_core::MAX_SCHEMA_DEPTH;
use serde::{Deserialize, Serialize};

/// Two generic sub-documents that hold each other: neither is checked on its
/// own (their fields' types are not known until they are used).
#[derive(Embedded, Serialize, Deserialize)]
struct Branch<T> {
    value: T,
    leaf: Option<Box<Leaf<T>>>,
}

#[derive(Embedded, Serialize, Deserialize)]
struct Leaf<T> {
    value: T,
    branch: Option<Box<Branch<T>>>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "forests")]
struct Forest {
    #[serde(rename = "_id")]
    id: String,
    root: Branch<i32>,
}

/// A hand-written schema that recurses through `Vec`.
#[derive(Serialize, Deserialize)]
struct Outline {
    title: String,
    children: Vec<Outline>,
}

impl BsonSchema for Outline {
    fn bson_schema() -> bson::Document {
        bson::doc! {
            "bsonType": "object",
            "properties": { "children": Vec::<Outline>::bson_schema() },
        }
    }
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "books")]
struct Book {
    #[serde(rename = "_id")]
    id: String,
    #[embed(unbounded = "the outline is hand-described")]
    outline: Outline,
}

/// The panic message of `f`, which must panic.
fn panic_message<R>(f: impl FnOnce() -> R + UnwindSafe) -> String {
    let payload = match catch_unwind(f) {
        Ok(_) => panic!("building the validator did not fail"),
        Err(payload) => payload,
    };
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

fn assert_names_recursion(message: &str) {
    assert!(
        message.contains(&format!("nests more than {MAX_SCHEMA_DEPTH} levels deep")),
        "{message}"
    );
    assert!(message.contains("a recursive type"), "{message}");
}

#[test]
fn generic_mutual_recursion_fails_with_a_message() {
    let message = panic_message(Forest::validator);
    assert_names_recursion(&message);
    assert!(
        message.contains("depth_guard::Branch<i32>` holds itself"),
        "{message}"
    );
}

#[test]
fn schema_with_a_recursive_model_fails_with_a_message() {
    let message = panic_message(|| Schema::new().with::<Forest>());
    assert_names_recursion(&message);
}

#[test]
fn a_hand_written_recursive_schema_fails_with_a_message() {
    let message = panic_message(Book::validator);
    assert_names_recursion(&message);
    assert!(
        message.contains("depth_guard::Outline` holds itself"),
        "{message}"
    );
}

#[test]
fn the_guard_leaves_no_depth_behind_after_a_failure() {
    // Each failure unwinds through 100 levels; were they not given back, the
    // next build on this thread would start at the limit and fail at once.
    for _ in 0..3 {
        let _ = panic_message(Book::validator);
    }
    let nested = schema_core::schema_of::<Option<Vec<String>>>();
    assert_eq!(
        nested,
        bson::doc! { "bsonType": ["array", "null"], "items": { "bsonType": "string" } }
    );
}
