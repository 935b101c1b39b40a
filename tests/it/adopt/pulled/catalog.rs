// Models pulled from the data by `schema pull --full --headroom 100 --long 1000`.
// Documents read: items 40, products 20, skus 60.
// Every comment says what was seen: read them, then adjust the types, the bounds and the names
// before use.

use schema_core::bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Every model below, for the schema command (a `src/bin/schema.rs` whose `main` awaits
// `schema_core::cli::run(&models::schema())`) and for `Schema::plan` and `sync`.
pub fn schema() -> schema_core::Schema {
    schema_core::Schema::new()
        .with::<Item>()
        .with::<Product>()
        .with::<Sku>()
}

// `items`: 40 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "items")]
pub struct Item {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub description: String,
    pub details: Details,
    pub name: String,
    pub price: f64,
    #[serde(rename = "type")]
    pub type_: String,
}

// At `details`.
// The `type` beside it decides its shape: one variant per value. The tag is stored beside the
// sub-document, not in it, so serde tells the variants apart by their fields (untagged, tried in
// order); with the tag moved inside, `#[serde(tag = "type")]` would say it.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged, deny_unknown_fields)]
pub enum Details {
    // "book": 20 seen
    Book {
        author: String,
        isbn: String,
        size: String,
    },

    // "dvd": 20 seen
    Dvd {
        actor: String,
        director: String,
        media: String,
    },
}

// `products`: 20 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "products")]
pub struct Product {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    // lengths: max 1, p50 1, p99 1, 20 arrays seen
    #[embed(max = 2)]
    pub colors: Vec<String>,
    pub name: String,
    // lengths: max 3, p50 3, p99 3, 20 arrays seen
    // holds `skus` ids (60 of 60 looked up found); no index leads with it on the server
    #[many_to_many(one_sided, to = Sku, max = 10)]
    pub skus: Vec<ObjectId>,
}

// `skus`: 60 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "skus")]
pub struct Sku {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub color: String,
    pub size: String,
}
