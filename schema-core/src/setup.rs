//! Setup: make the server match the models. Creates missing collections with
//! their validators, updates changed validators with `collMod`, creates
//! missing indexes (one `createIndexes` per collection), and reports drift.
//! On a server that already matches it sends reads only.

use std::collections::BTreeMap;

use bson::{doc, Document as BsonDocument};
use futures_util::future::try_join_all;
use futures_util::TryStreamExt;
use mongodb::Database;

use crate::error::{Error, Result};
use crate::plan::{diff_indexes, same_validator, Action, Plan, ServerIndex};
use crate::schema::{ModelInfo, Schema};

/// What setup may do beyond creating what is missing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncOptions {
    /// Drop indexes that no model declares (off by default: they are only reported).
    pub drop_extra_indexes: bool,
    /// Drop and recreate indexes whose definition differs from the model
    /// (off by default: setup refuses with [`Error::IndexConflict`]).
    pub replace_conflicting: bool,
}

/// What a setup run did, and the drift it left alone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SyncReport {
    /// Steps sent to the server.
    pub applied: Vec<Action>,
    /// Drift reported and left alone.
    pub left_alone: Vec<Action>,
}

impl Schema {
    /// Compares the models with the server and returns what setup would do.
    /// Refuses two models on one collection ([`Error::CollectionClash`])
    /// before sending anything. Otherwise sends reads only: `hello` (when a
    /// model needs transactions), `listCollections`, and `listIndexes` for
    /// each existing collection.
    pub async fn plan(&self, db: &Database) -> Result<Plan> {
        self.check()?;
        check_transactions(self, db).await?;
        let existing = list_collections(db).await?;
        let models = by_collection(self.models());
        let existing = &existing;
        let indexes = try_join_all(models.keys().map(|name| async move {
            match existing.get(*name) {
                Some(_) => list_indexes(db, name).await,
                None => Ok(Vec::new()),
            }
        }))
        .await?;

        let mut actions = Vec::new();
        for ((collection, model), server_indexes) in models.iter().zip(indexes) {
            match existing.get(*collection) {
                None => actions.push(Action::CreateCollection {
                    collection: collection.to_string(),
                    validator: model.validator.clone(),
                }),
                Some(current) if !same_validator(current.as_ref(), &model.validator) => actions
                    .push(Action::UpdateValidator {
                        collection: collection.to_string(),
                        current: current.clone(),
                        wanted: model.validator.clone(),
                    }),
                Some(_) => {}
            }
            diff_indexes(collection, &model.indexes, &server_indexes, &mut actions);
        }
        Ok(Plan { actions })
    }

    /// Plans, then applies with default options: creates what is missing,
    /// reports extra indexes, refuses conflicting ones.
    pub async fn sync(&self, db: &Database) -> Result<SyncReport> {
        self.sync_with(db, SyncOptions::default()).await
    }

    /// Plans, then applies with `options`.
    pub async fn sync_with(&self, db: &Database, options: SyncOptions) -> Result<SyncReport> {
        let plan = self.plan(db).await?;
        apply(db, plan, options).await
    }
}

/// Applies a plan. Refuses (before writing anything) when it holds a
/// conflicting index and `replace_conflicting` is off.
pub async fn apply(db: &Database, plan: Plan, options: SyncOptions) -> Result<SyncReport> {
    if !options.replace_conflicting {
        if let Some(Action::ConflictingIndex {
            collection,
            server,
            wanted,
        }) = plan
            .actions
            .iter()
            .find(|a| matches!(a, Action::ConflictingIndex { .. }))
        {
            return Err(Error::IndexConflict {
                collection: collection.clone(),
                server: server.to_string(),
                wanted: wanted.to_string(),
            });
        }
    }

    let mut report = SyncReport::default();
    let mut to_create: BTreeMap<String, Vec<mongodb::IndexModel>> = BTreeMap::new();
    for action in plan.actions {
        let collection = action.collection().to_owned();
        let coll = db.collection::<BsonDocument>(&collection);
        match &action {
            Action::CreateCollection { validator, .. } => {
                db.create_collection(&collection)
                    .validator(validator.clone())
                    .await
                    .map_err(|e| Error::from_server(e, "create collection", &collection))?;
            }
            Action::UpdateValidator { wanted, .. } => {
                db.run_command(doc! { "collMod": &collection, "validator": wanted.clone() })
                    .await
                    .map_err(|e| Error::from_server(e, "update the validator of", &collection))?;
            }
            Action::CreateIndex { spec, .. } => {
                to_create
                    .entry(collection)
                    .or_default()
                    .push(spec.to_index_model());
            }
            Action::ConflictingIndex { server, wanted, .. } => {
                coll.drop_index(&server.name)
                    .await
                    .map_err(|e| Error::from_server(e, "drop index on", &collection))?;
                to_create
                    .entry(collection)
                    .or_default()
                    .push(wanted.to_index_model());
            }
            Action::ExtraIndex { index, .. } => {
                if !options.drop_extra_indexes {
                    report.left_alone.push(action);
                    continue;
                }
                coll.drop_index(&index.name)
                    .await
                    .map_err(|e| Error::from_server(e, "drop index on", &collection))?;
            }
        }
        report.applied.push(action);
    }
    for (collection, models) in to_create {
        db.collection::<BsonDocument>(&collection)
            .create_indexes(models)
            .await
            .map_err(|e| Error::from_server(e, "create indexes on", &collection))?;
    }
    Ok(report)
}

/// The models by collection, one each ([`Schema::check`] has refused two
/// on one collection).
fn by_collection(models: &[ModelInfo]) -> BTreeMap<&'static str, &ModelInfo> {
    models.iter().map(|m| (m.collection, m)).collect()
}

/// Every collection of the database with its validator (one `listCollections`).
async fn list_collections(db: &Database) -> Result<BTreeMap<String, Option<BsonDocument>>> {
    let specs: Vec<_> = db
        .list_collections()
        .await
        .map_err(|e| Error::from_server(e, "list collections of", db.name()))?
        .try_collect()
        .await
        .map_err(|e| Error::from_server(e, "list collections of", db.name()))?;
    Ok(specs
        .into_iter()
        .map(|s| (s.name, s.options.validator))
        .collect())
}

async fn list_indexes(db: &Database, collection: &str) -> Result<Vec<ServerIndex>> {
    let models: Vec<mongodb::IndexModel> = db
        .collection::<BsonDocument>(collection)
        .list_indexes()
        .await
        .map_err(|e| Error::from_server(e, "list indexes of", collection))?
        .try_collect()
        .await
        .map_err(|e| Error::from_server(e, "list indexes of", collection))?;
    Ok(models.iter().map(ServerIndex::from_model).collect())
}

/// A schema with two-sided links needs a replica set (transactions): say so
/// at setup time rather than at the first link.
async fn check_transactions(schema: &Schema, db: &Database) -> Result<()> {
    let models = schema.transactional_models();
    if models.is_empty() {
        return Ok(());
    }
    crate::txn::require_transactions(db.client(), &models).await
}
