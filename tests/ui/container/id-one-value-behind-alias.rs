use bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

type MaybeId = Option<ObjectId>;
type Key = Box<[String; 2]>;
// A tuple of any length is stored as an array; `PhantomData` as null; a
// `Cow` as what it holds.
type Wide = (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32);
type Nothing = std::marker::PhantomData<ObjectId>;
type Borrowed = std::borrow::Cow<'static, Option<ObjectId>>;

// The derive cannot see through an alias; the generated bound does.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: MaybeId,
    title: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "pairs")]
struct Pair {
    #[serde(rename = "_id")]
    id: Key,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "wide")]
struct WideKey {
    #[serde(rename = "_id")]
    id: Wide,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "nothing")]
struct NothingKey {
    #[serde(rename = "_id")]
    id: Nothing,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "borrowed")]
struct BorrowedKey {
    #[serde(rename = "_id")]
    id: Borrowed,
}

fn main() {}
