// Models pulled from the data by `schema pull --full --headroom 100 --long 1000`.
// Documents read: authors 30, books 100, products 25.
// Every comment says what was seen: read them, then adjust the types, the bounds and the names
// before use.

use schema_core::bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Every model below, for the schema command (a `src/bin/schema.rs` whose `main` awaits
// `schema_core::cli::run(&models::schema())`) and for `Schema::plan` and `sync`.
pub fn schema() -> schema_core::Schema {
    schema_core::Schema::new()
        .with::<Author>()
        .with::<Book>()
        .with::<Product>()
}

// `authors`: 30 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "authors")]
pub struct Author {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
}

// `books`: 100 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "books", index(keys(author_id = asc)))]
pub struct Book {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    // holds `authors` ids (30 of 30 looked up found); an index leads with it; not declared: the
    // server's index `author_id_1` is on it alone, and the derive takes no index on a reference's
    // own key beside the reference's index (`{author_id: 1, _id: 1}`, ties ordered for pages); to
    // declare `#[reference(index, to = Author)]`, remove the `index(..)` above, `sync`, then drop
    // `author_id_1`
    pub author_id: ObjectId,
    pub title: String,
}

// `products`: 25 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "products")]
pub struct Product {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
    pub price: f64,
    // lengths: max 5, p50 2, p99 5, 25 arrays seen
    #[embed(max = 10)]
    pub reviews: Vec<Review>,
}

// At `reviews`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Review {
    pub comment: String,
    pub rating: i32,
    pub user: String,
}
