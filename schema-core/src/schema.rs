//! A set of models registered together, as data that setup can compare with
//! the server.

use bson::Document as BsonDocument;

use crate::index::IndexSpec;
use crate::model::Document;

/// What setup needs to know about one model.
#[derive(Debug, Clone)]
pub struct ModelInfo {
    /// The Rust type name.
    pub name: &'static str,
    /// The collection.
    pub collection: &'static str,
    /// The `$jsonSchema` validator.
    pub validator: BsonDocument,
    /// Every declared index.
    pub indexes: Vec<IndexSpec>,
    /// Whether its writes need multi-document transactions (two-sided links).
    pub needs_transactions: bool,
}

impl ModelInfo {
    /// Reads a model's generated metadata.
    pub fn of<M: Document>() -> Self {
        ModelInfo {
            name: M::NAME,
            collection: M::COLLECTION,
            validator: M::validator(),
            indexes: M::indexes(),
            needs_transactions: M::relations().iter().any(|r| r.needs_transaction()),
        }
    }
}

/// The models of one database.
///
/// ```
/// use schema_core::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Document, Serialize, Deserialize)]
/// #[document(collection = "users")]
/// struct User {
///     #[serde(rename = "_id")]
///     id: String,
/// }
///
/// let schema = Schema::new().with::<User>();
/// assert_eq!(schema.models()[0].collection, "users");
/// ```
#[derive(Debug, Clone, Default)]
pub struct Schema {
    models: Vec<ModelInfo>,
}

impl Schema {
    /// An empty schema.
    pub fn new() -> Self {
        Schema::default()
    }

    /// Adds a model.
    pub fn with<M: Document>(mut self) -> Self {
        self.register::<M>();
        self
    }

    /// Adds a model in place.
    pub fn register<M: Document>(&mut self) -> &mut Self {
        self.models.push(ModelInfo::of::<M>());
        self
    }

    /// Adds a model described by hand (for models built at run time).
    pub fn push(&mut self, model: ModelInfo) -> &mut Self {
        self.models.push(model);
        self
    }

    /// The registered models, in order.
    pub fn models(&self) -> &[ModelInfo] {
        &self.models
    }

    /// The models whose writes need transactions.
    pub fn transactional_models(&self) -> Vec<&'static str> {
        self.models
            .iter()
            .filter(|m| m.needs_transactions)
            .map(|m| m.name)
            .collect()
    }
}
