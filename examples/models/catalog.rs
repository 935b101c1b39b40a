//! Seed 004: polymorphic products in one collection (a book and a DVD differ
//! only in `details`), skus referenced from the product, and the searchable
//! sku colors copied into the product (the extended-reference pattern).

use schema_core::bson::oid::ObjectId;
use schema_core::{Document, Embedded};
use serde::{Deserialize, Serialize};

/// `products`: `skus` holds the ids of the product's skus (one-sided, so
/// one write per link, indexed to find the product of a sku); `colors` is
/// the copy of their colors that "products with a white sku" searches,
/// declared with `#[copy]` and kept in sync by `Copies<Product>`.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "products", index(keys(colors = asc)))]
pub struct Product {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub name: String,
    pub description: String,
    pub price: f64,
    pub details: Details,
    #[many_to_many(one_sided, to = Sku, max = 100)]
    pub skus: Vec<ObjectId>,
    #[embed(max = 100)]
    #[copy(from = skus, field = color)]
    pub colors: Vec<String>,
}

/// What differs between kinds of product, tagged by `type`:
/// `{"type": "book", "isbn": ..., "author": ..., "size": ...}`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Details {
    Book {
        isbn: String,
        author: String,
        size: String,
    },
    Dvd {
        director: String,
        actor: String,
        media: String,
    },
    Apparel {
        material: String,
    },
}

impl Details {
    /// The `type` tag as stored.
    pub fn kind(&self) -> &'static str {
        match self {
            Details::Book { .. } => "book",
            Details::Dvd { .. } => "dvd",
            Details::Apparel { .. } => "apparel",
        }
    }
}

/// `skus`: one per size and color, referenced by its product.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "skus")]
pub struct Sku {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub size: String,
    pub color: String,
}
