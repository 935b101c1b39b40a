// Models pulled from the data by `schema pull --full --headroom 100 --long 1000`.
// Documents read: customers 50, orders 200, products 20.
// Every comment says what was seen: read them, then adjust the types, the bounds and the names
// before use.

use schema_core::bson::oid::ObjectId;
use schema_core::bson::DateTime;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Every model below, for the schema command (a `src/bin/schema.rs` whose `main` awaits
// `schema_core::cli::run(&models::schema())`) and for `Schema::plan` and `sync`.
pub fn schema() -> schema_core::Schema {
    schema_core::Schema::new()
        .with::<Customer>()
        .with::<Order>()
        .with::<Product>()
}

// `customers`: 50 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "customers")]
pub struct Customer {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub email: String,
    pub name: String,
}

// `orders`: 200 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "orders")]
pub struct Order {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub created_at: DateTime,
    // holds `customers` ids (50 of 50 looked up found); no index leads with it on the server
    #[reference(index, to = Customer)]
    pub customer_id: ObjectId,
    // lengths: max 4, p50 2, p99 4, 200 arrays seen
    #[embed(max = 10)]
    pub items: Vec<Item>,
    pub order_number: String,
    pub shipping_address: ShippingAddress,
    pub status: String,
    pub total: f64,
}

// At `items`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Item {
    // holds `products` ids (20 of 20 looked up found); no index leads with it on the server; not
    // declared: a reference inside a sub-document is indexed from the root, by its path:
    // `#[document(index(keys("items.product_id" = asc)))]`
    pub product_id: ObjectId,
    pub qty: i32,
    pub unit_price: f64,
}

// At `shipping_address`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ShippingAddress {
    pub city: String,
    pub country: String,
    pub street: String,
}

// `products`: 20 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "products")]
pub struct Product {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub category: String,
    pub current_price: f64,
    pub name: String,
    pub sku: String,
}
