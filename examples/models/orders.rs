//! Seed 001: an order embeds its line items (read together, at most 100)
//! and references the products, which are shared and change on their own.
//! A line item keeps `unit_price`, the price at the time of sale.

use schema_core::bson::oid::ObjectId;
use schema_core::{Document, Embedded};
use serde::{Deserialize, Serialize};

/// `orders`: one `find` returns everything the order page shows.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "orders", index(keys(order_number = asc), unique))]
pub struct Order {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub order_number: String,
    pub status: String,
    pub customer: Customer,
    #[embed(max = 100)]
    pub items: Vec<LineItem>,
    pub total: f64,
    pub created_at: schema_core::bson::DateTime,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Customer {
    pub name: String,
    pub email: String,
    pub shipping_address: Address,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Address {
    pub street: String,
    pub city: String,
    pub country: String,
}

/// A line item: the product by reference, the price as it was when sold.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LineItem {
    pub product_id: ObjectId,
    pub qty: i32,
    /// The price at the time of sale: a snapshot of the product's price,
    /// never updated when the product's price changes.
    #[snapshot(of = Product, field = current_price)]
    pub unit_price: f64,
}

/// `products`: shared by many orders; `current_price` changes independently.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "products", index(keys(sku = asc), unique))]
pub struct Product {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub sku: String,
    pub name: String,
    pub current_price: f64,
    pub description: String,
    pub category: String,
}
