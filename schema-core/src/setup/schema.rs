//! A set of models registered together, as data that setup can compare with
//! the server.
//!
//! One collection, one model: a collection has one validator and one set of
//! indexes, so two models declared on the same collection would have the
//! writes of one refused by the rules of the other. [`Schema::check`] refuses
//! that, and [`Schema::plan`] and [`Schema::sync`] call it before sending
//! anything. The same model registered twice is kept once.

use bson::Document as BsonDocument;

use crate::error::{Error, Result};
use crate::evolution::migrate::{migration, MigrateOptions, Migration, Progress};
use crate::model::delete_policy::{PolicyGraph, RefPolicy};
use crate::model::index::IndexSpec;
use crate::model::Document;

/// What setup needs to know about one model.
#[derive(Debug, Clone, PartialEq)]
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
    /// Its time-series options, when it is stored in a time series.
    pub timeseries: Option<crate::model::timeseries::TimeSeriesSpec>,
    /// The delete policies its references declare (`on_delete`).
    pub on_delete: Vec<RefPolicy>,
    /// Its declared relationships (embeds, references, links), for the
    /// diagram.
    pub relations: Vec<crate::model::Relation>,
    /// The copies its fields hold (`#[copy]`).
    pub copies: Vec<crate::model::CopySpec>,
    /// Its shard key, when it declares one.
    pub shard_key: Option<crate::model::shard::ShardKey>,
    /// Its schema versions, when it names earlier shapes (see
    /// `versions`): the plan counts its documents per
    /// version.
    pub versions: Option<crate::model::schema_version::Versions>,
    /// Whether its collection keeps pre-images for change streams
    /// (`#[document(pre_images)]`).
    pub pre_images: bool,
    /// Its encrypted fields (`#[encrypt(...)]`, at every depth), each
    /// with the name of its data key, which setup creates.
    pub encrypted: Vec<crate::model::encrypted::EncryptedSpec>,
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
            timeseries: M::TIMESERIES,
            on_delete: RefPolicy::of::<M>(),
            relations: M::relations(),
            copies: M::copies(),
            shard_key: M::SHARD_KEY,
            versions: M::VERSIONS.filter(|v| !v.older.is_empty()),
            pre_images: M::PRE_IMAGES,
            encrypted: M::encrypted(),
        }
    }
}

/// The models of one database.
///
/// ```
/// use schema_core::prelude::*;
/// use schema_core::Schema;
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
    /// The migrations of the models that name earlier shapes (model name,
    /// migration), in the order they were added.
    migrations: Vec<(&'static str, Migration)>,
    /// How a stored document of each model's collection is read and its
    /// bounds checked (collection, check), for the audit.
    checks: Vec<(&'static str, crate::model::codec::StoredCheck)>,
    /// The encryption handle that creates the data keys of encrypted
    /// fields (see `with_encryption`).
    pub(crate) keys: crate::crypt::Keys,
}

impl Schema {
    /// An empty schema.
    pub fn new() -> Self {
        Schema::default()
    }

    /// Adds a model. Adding the same model again adds nothing; adding
    /// another model on a collection already taken is refused by
    /// [`check`](Self::check), [`plan`](Self::plan) and [`sync`](Self::sync).
    pub fn with<M: Document>(mut self) -> Self {
        let model = ModelInfo::of::<M>();
        if model.versions.is_some() && !self.migrations.iter().any(|(name, _)| *name == M::NAME) {
            self.migrations.push((M::NAME, migration::<M>()));
        }
        if !self.checks.iter().any(|(c, _)| *c == M::COLLECTION) {
            self.checks
                .push((M::COLLECTION, crate::model::codec::check_stored::<M>));
        }
        self.with_info(model)
    }

    /// Creates the data keys of the models' encrypted fields
    /// (`#[encrypt(...)]`) with `crypt`, in its key vault: [`plan`](Self::plan)
    /// lists each missing one ([`Step::CreateDataKey`](crate::Step::CreateDataKey)),
    /// [`sync`](Self::sync) creates it. Without a handle, a schema with
    /// encrypted fields is refused by both ([`Error::Encryption`]).
    #[cfg(feature = "encryption")]
    pub fn with_encryption(mut self, crypt: crate::crypt::Encryption) -> Self {
        self.keys = crate::crypt::Keys::new(crypt);
        self
    }

    /// Adds a collection described by hand (for models built at run time,
    /// and the edge collection of a [`Through`](crate::Through):
    /// `schema.with_info(members.model_info())`). A description equal to one
    /// already added adds nothing.
    pub fn with_info(mut self, model: ModelInfo) -> Self {
        if !self.models.contains(&model) {
            self.models.push(model);
        }
        self
    }

    /// Refuses two models declared on one collection, with
    /// [`Error::CollectionClash`] naming both and the collection. Sends
    /// nothing; [`plan`](Self::plan) and [`sync`](Self::sync) call it first.
    ///
    /// ```
    /// use schema_core::prelude::*;
    /// use schema_core::{Error, Schema};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Document, Serialize, Deserialize)]
    /// #[document(collection = "posts")]
    /// struct Post {
    ///     #[serde(rename = "_id")]
    ///     id: String,
    /// }
    ///
    /// #[derive(Document, Serialize, Deserialize)]
    /// #[document(collection = "posts")]
    /// struct Article {
    ///     #[serde(rename = "_id")]
    ///     id: String,
    ///     title: String,
    /// }
    ///
    /// assert!(Schema::new().with::<Post>().with::<Post>().check().is_ok());
    /// let err = Schema::new().with::<Post>().with::<Article>().check().unwrap_err();
    /// assert!(matches!(
    ///     err,
    ///     Error::CollectionClash { collection: "posts", first: "Post", second: "Article" }
    /// ));
    /// ```
    pub fn check(&self) -> Result<()> {
        self.policies()?;
        for model in &self.models {
            random_fields_take_no_index(model)?;
        }
        for (i, model) in self.models.iter().enumerate() {
            if let Some(first) = self.models[..i]
                .iter()
                .find(|m| m.collection == model.collection)
            {
                return Err(Error::CollectionClash {
                    collection: model.collection,
                    first: first.name,
                    second: model.name,
                });
            }
        }
        Ok(())
    }

    /// The delete policies of the models and their two-sided links (see
    /// `delete_policy`); refuses a cycle of cascades
    /// with [`Error::CascadeCycle`].
    pub fn policies(&self) -> Result<PolicyGraph> {
        let links = self
            .models
            .iter()
            .flat_map(|m| {
                crate::model::delete_policy::inverse_arrays(&m.relations)
                    .into_iter()
                    .map(|link| (m.collection, link))
            })
            .collect();
        PolicyGraph::new(
            self.models.iter().flat_map(|m| m.on_delete.iter().cloned()),
            links,
        )
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

    /// Runs [`Repo::migrate`](crate::Repo::migrate) for every model that
    /// names earlier shapes (`#[document(migrate_from(..))]`), one model
    /// after another in the order they were added, calling `progress` with
    /// the model's name after each batch; each model's last progress.
    /// Stops at the first model whose migration fails (see
    /// [`Repo::migrate`](crate::Repo::migrate)): run it again to resume.
    /// Models without earlier shapes are not read. Encrypted fields are
    /// read and written back with the handle of
    /// `with_encryption` (the `encryption` feature).
    pub async fn migrate(
        &self,
        db: &mongodb::Database,
        options: MigrateOptions,
        mut progress: impl FnMut(&'static str, &Progress) + Send,
    ) -> Result<Vec<(&'static str, Progress)>> {
        let mut done = Vec::with_capacity(self.migrations.len());
        for (name, migrate) in &self.migrations {
            let mut report = |p: &Progress| progress(name, p);
            done.push((*name, migrate(db, &self.keys, options, &mut report).await?));
        }
        Ok(done)
    }

    /// How the model registered first on `collection` reads a stored
    /// document and checks its bounds (none for a model added by
    /// [`with_info`](Self::with_info)).
    pub(crate) fn stored_check(
        &self,
        collection: &str,
    ) -> Option<crate::model::codec::StoredCheck> {
        self.checks
            .iter()
            .find(|(c, _)| *c == collection)
            .map(|(_, check)| *check)
    }

    /// The names of the models [`migrate`](Self::migrate) runs.
    pub fn versioned_models(&self) -> Vec<&'static str> {
        self.migrations.iter().map(|(name, _)| *name).collect()
    }
}

/// A random-encrypted field (at any depth) takes no index: no query can
/// match its ciphertexts. The derive refuses one on a document's own
/// field; this refuses the index keys it cannot see (a path into a
/// sub-document).
fn random_fields_take_no_index(model: &ModelInfo) -> Result<()> {
    let random = model
        .encrypted
        .iter()
        .filter(|f| f.algorithm == crate::model::encrypted::Algorithm::Random);
    for field in random {
        let on_it = |key: &str| {
            key == field.path
                || key
                    .strip_prefix(field.path.as_str())
                    .is_some_and(|r| r.starts_with('.'))
                || field
                    .path
                    .strip_prefix(key)
                    .is_some_and(|r| r.starts_with('.'))
        };
        if let Some(index) = model
            .indexes
            .iter()
            .find(|i| i.keys.iter().any(|(k, _)| on_it(k)))
        {
            return Err(Error::Encryption {
                action: "index",
                model: Some(model.name),
                field: Some(field.path.clone()),
                key: field.key.clone(),
                reason: format!(
                    "the index `{}` is on a random-encrypted field, whose ciphertext differs every time: no query can use it; encrypt the field `deterministic` to index it, or drop it from the index",
                    index.name
                ),
            });
        }
    }
    Ok(())
}
