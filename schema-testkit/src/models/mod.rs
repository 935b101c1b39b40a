//! The seed models (seeds 000 and 001), shared by the integration tests
//! (through `tests/models`: `mod models;` then `use models::*;`).

use bson::oid::ObjectId;
use schema_core::{Document, Embedded};
use serde::{Deserialize, Serialize};

/// Seed 000: a user with an embedded one-to-one profile.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "users", index(keys(email = asc), unique))]
pub struct User {
    #[serde(rename = "_id")]
    pub id: String,
    pub email: String,
    pub profile: Profile,
}

impl User {
    /// The test user number `i`: `user_{i}`, `u{i}@example.test`.
    pub fn sample(i: usize) -> User {
        User {
            id: format!("user_{i}"),
            email: format!("u{i}@example.test"),
            profile: Profile {
                display_name: format!("User {i}"),
                bio: None,
                joined_year: 2020 + (i % 7) as i32,
            },
        }
    }
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub display_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bio: Option<String>,
    pub joined_year: i32,
}

/// Seed 000: one-to-many by reference from the child, with the compound
/// index `{authorId: 1, at: -1, _id: -1}` that pages a user's newest posts.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "posts")]
pub struct Post {
    #[serde(rename = "_id")]
    pub id: String,
    #[reference(index, to = User, sort(at = desc))]
    pub author_id: String,
    pub title: String,
    #[embed(max = 10)]
    pub tags: Vec<String>,
    pub at: bson::DateTime,
}

impl Post {
    /// The test post number `i` (`post_{i:05}`) of `author`, written at
    /// `at_ms` milliseconds since the epoch.
    pub fn sample(i: usize, author: &str, at_ms: i64) -> Post {
        Post {
            id: format!("post_{i:05}"),
            author_id: author.to_owned(),
            title: format!("Post {i}"),
            tags: vec!["mongodb".into(), "modeling".into(), format!("tag{}", i % 5)],
            at: bson::DateTime::from_millis(at_ms),
        }
    }
}

/// Seed 000: many-to-many with id arrays on both sides, the models the
/// `school` example uses.
#[path = "../../../examples/models/school.rs"]
pub mod school;
pub use school::{Course, Student};

pub mod moved;

/// Seed 001: an order embeds its (bounded) line items and references products.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(
    collection = "orders",
    index(keys(order_number = asc), unique),
    index(keys(customer_id = asc, placed_at = desc), name = "by_customer"),
    index(keys(placed_at = asc), expire_after = 7776000, name = "expire_quotes",
          partial(status = "quote")),
    index(keys("customer.email" = asc), sparse,
          partial(status(exists = true), total(gt = 0, lte = 100000)))
)]
pub struct Order {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub order_number: String,
    pub status: String,
    pub customer_id: ObjectId,
    pub placed_at: bson::DateTime,
    pub total: f64,
    #[embed(max = 100)]
    pub items: Vec<LineItem>,
}

/// A line item keeps the price at the time of sale; the product is referenced.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LineItem {
    #[serde(rename = "productId")]
    pub product_id: String,
    pub name: String,
    pub unit_price: f64,
    pub quantity: i32,
}

/// Seed 001: the product's current price, which changes independently of orders.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "products")]
pub struct Product {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub current_price: f64,
}
