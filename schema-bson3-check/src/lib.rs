//! Models as a user writes them with `schema-core` and `serde` as the only
//! dependencies: every BSON type comes from `schema_core::bson` (bson 3),
//! every driver type from `schema_core::mongodb`. If the derive's generated
//! code named `::bson`, `::mongodb` or `::serde_json` itself, this crate
//! would not compile.
//!
//! `tests/bson3_types_through_reexports.rs` stores and reads these models on
//! a real server.

use schema_core::bson::{
    oid::ObjectId, Binary, DateTime, Decimal128, Document as BsonDocument, Uuid,
};
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

/// One line of an invoice: a sub-document with a `decimal` price.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    /// The article.
    pub sku: String,
    /// Price of one article, exact (`decimal`).
    pub unit_price: Decimal128,
    /// How many.
    pub quantity: i32,
}

/// A customer whose `_id` is a UUID (`binData` subtype 4).
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "customers")]
pub struct Customer {
    /// The id.
    #[serde(rename = "_id")]
    pub id: Uuid,
    /// Display name.
    pub name: String,
}

/// An invoice: bson 3 scalars, a bounded embed of sub-documents, a reference
/// to its customer by UUID with a compound index, a `serde_helpers`
/// converter named through the re-export, and a free-form document behind
/// the explicit escape hatch.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "invoices")]
pub struct Invoice {
    /// The id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The customer billed (index `{customerId: 1, issued: -1, _id: -1}`).
    #[reference(index, to = Customer, sort(issued = desc))]
    pub customer_id: Uuid,
    /// When it was issued (`date`).
    pub issued: DateTime,
    /// The amount due (`decimal`).
    pub total: Decimal128,
    /// Times it was viewed, stored as a BSON `long`.
    #[serde(with = "schema_core::bson::serde_helpers::u64::AsI64")]
    pub views: u64,
    /// A detached signature (`binData`).
    pub signature: Binary,
    /// At most three lines.
    #[embed(max = 3)]
    pub lines: Vec<Line>,
    /// Whatever the billing system attaches.
    #[embed(unbounded = "free-form metadata from the billing system, capped by it")]
    pub extra: BsonDocument,
}

/// The examples' models (`examples/models/`), compiled here too: a model a
/// user copies from them compiles in a crate whose only dependencies are
/// `schema-core` and `serde` (a bare `bson::` or `mongodb::` path would not
/// resolve here).
#[path = "../../examples/models/mod.rs"]
pub mod examples;
