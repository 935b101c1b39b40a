//! Setup: make the server match the models. Creates missing collections with
//! their validators, updates changed validators with `collMod`, creates
//! missing indexes (one `createIndexes` per collection), and reports drift.
//! On a server that already matches it sends reads only. An index the
//! server refuses (an option it does not take, a unique index over keys
//! stored twice) stops setup with [`Error::SetupRefused`], naming the
//! collection, the index and its keys, and what was done before it.
//!
//! A validator change that existing documents fail is refused unless the
//! caller says how ([`OnViolations`]): after a stricter validator is applied
//! at the default level (`strict`), every write to a document that fails it
//! is refused with code 121, even a `$set` of an unrelated field.

use std::collections::BTreeMap;

use bson::{doc, Bson, Document as BsonDocument};
use futures_util::future::try_join_all;
use futures_util::TryStreamExt;
use mongodb::options::ValidationLevel;
use mongodb::Database;

use crate::error::{Error, Result};
use crate::model::index::server::{same_validator, ServerIndex};
use crate::model::index::IndexSpec;
use crate::model::schema_version::count_per_version;
use crate::setup::plan::{diff_indexes, Plan};
use crate::setup::schema::{ModelInfo, Schema};
use crate::setup::step::{Action, VersionCount, Violators, VIOLATOR_SAMPLE};

/// What setup may do beyond creating what is missing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncOptions {
    /// Drop indexes that no model declares (off by default: they are only reported).
    pub drop_extra_indexes: bool,
    /// Drop and recreate indexes whose definition differs from the model
    /// (off by default: setup refuses with [`Error::IndexConflict`]).
    pub replace_conflicting: bool,
    /// What to do when existing documents fail a validator that setup would
    /// change (default: refuse with [`Error::ValidatorRejectsExisting`]).
    pub on_violations: OnViolations,
}

/// What setup does with a validator change that existing documents fail
/// (counted by the plan: [`Action::UpdateValidator`]'s `violators`).
///
/// Other choices may come, so a `match` needs a `_` arm.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnViolations {
    /// Refuse, before writing anything, with
    /// [`Error::ValidatorRejectsExisting`] naming the collection, the count
    /// and the first `_id`s: fix those documents, then run setup again.
    #[default]
    Refuse,
    /// Apply the validator with `validationLevel: "moderate"`: new documents
    /// and documents that pass it are checked, documents that already fail
    /// it stay writable (unchecked). Setup restores `strict` by itself once
    /// no document fails ([`Action::ValidationLevel`]).
    ValidateModerate,
    /// Apply the validator at `strict` anyway: every later write to a
    /// document that fails it is refused (code 121) until it is fixed.
    Apply,
}

/// What a setup run did, and the drift it left alone.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
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
    /// model needs transactions), `listCollections`, `listIndexes` for each
    /// existing collection, and, for each collection whose validator would
    /// change (or is checked at a level other than `strict`), a count and a
    /// `find` of the documents that fail the model's validator (a scan of
    /// the collection: validators change rarely); and, when a model declares
    /// a shard key, `hello` and (on a mongos) one `find` of
    /// `config.collections` (see [`shard`](crate::model::shard)).
    pub async fn plan(&self, db: &Database) -> Result<Plan> {
        self.check()?;
        check_transactions(self, db).await?;
        let existing = list_collections(db).await?;
        let models = by_collection(self.models());
        let existing = &existing;
        let found = try_join_all(models.iter().map(|(name, model)| async move {
            let Some(server) = existing.get(*name) else {
                return Ok((Vec::new(), None));
            };
            let changed = !same_validator(server.validator.as_ref(), &model.validator);
            // A time series has no validator to compare.
            let plain = model.timeseries.is_none() && server.timeseries.is_none();
            let violators = if plain && (changed || server.level.is_some()) {
                Some(violators(db, name, &model.validator).await?)
            } else {
                None
            };
            Ok::<_, Error>((list_indexes(db, name).await?, violators))
        }))
        .await?;

        let mut actions = Vec::new();
        for ((collection, model), (server_indexes, violators)) in models.iter().zip(found) {
            let violators = violators.unwrap_or_default();
            match (existing.get(*collection), &model.timeseries) {
                (None, Some(timeseries)) => actions.push(Action::CreateTimeSeries {
                    collection: collection.to_string(),
                    timeseries: *timeseries,
                }),
                (Some(server), wanted) if wanted.is_some() || server.timeseries.is_some() => {
                    if let Some(drift) = timeseries_drift(collection, server, wanted.as_ref()) {
                        actions.push(drift);
                    }
                }
                (None, None) => actions.push(Action::CreateCollection {
                    collection: collection.to_string(),
                    validator: model.validator.clone(),
                }),
                (Some(server), _)
                    if !same_validator(server.validator.as_ref(), &model.validator) =>
                {
                    actions.push(Action::UpdateValidator {
                        collection: collection.to_string(),
                        current: server.validator.clone(),
                        wanted: model.validator.clone(),
                        violators,
                    })
                }
                (
                    Some(ServerCollection {
                        level: Some(level), ..
                    }),
                    _,
                ) => actions.push(Action::ValidationLevel {
                    collection: collection.to_string(),
                    current: level.clone(),
                    violators,
                }),
                (Some(_), _) => {}
            }
            // Another kind of collection than the model's: its indexes wait
            // for the collection to be made right.
            let kind_differs = matches!(actions.last(), Some(Action::TimeSeriesDiffers { collection: c, .. }) if c == collection);
            if !kind_differs {
                let server_indexes = without_implicit(existing.get(*collection), server_indexes);
                diff_indexes(collection, &model.indexes, &server_indexes, &mut actions);
            }
        }
        let mut unsharded = Vec::new();
        plan_sharding(db, &models, &mut actions, &mut unsharded).await?;
        let versions = try_join_all(models.iter().filter_map(|(collection, model)| {
            let current = model.versions?.current;
            let exists = existing.contains_key(*collection);
            Some(async move {
                let counts = if exists {
                    count_per_version(db, collection, None)
                        .await
                        .map_err(|e| Error::from_server(e, "count versions in", collection))?
                } else {
                    Vec::new()
                };
                Ok::<_, Error>(VersionCount {
                    collection: collection.to_string(),
                    current,
                    counts,
                })
            })
        }))
        .await?;
        Ok(Plan {
            actions,
            policies: self.policies()?,
            unsharded,
            versions,
        })
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
/// conflicting index and `replace_conflicting` is off, or a validator change
/// that existing documents fail and `on_violations` is
/// [`OnViolations::Refuse`].
pub(crate) async fn apply(db: &Database, plan: Plan, options: SyncOptions) -> Result<SyncReport> {
    if options.on_violations == OnViolations::Refuse {
        if let Some(Action::UpdateValidator {
            collection,
            violators,
            ..
        }) = plan.actions.iter().find(
            |a| matches!(a, Action::UpdateValidator { violators, .. } if !violators.is_empty()),
        ) {
            return Err(Error::ValidatorRejectsExisting {
                collection: collection.clone(),
                count: violators.count,
                ids: violators.id_texts(),
            });
        }
    }
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
    // The indexes to build per collection, each with whether it replaces a
    // server index dropped above.
    let mut to_create: BTreeMap<String, Vec<(IndexSpec, bool)>> = BTreeMap::new();
    // What this run did, in words, for an error that stops it.
    let mut done: Vec<String> = Vec::new();
    // Sharded once their indexes exist: the shard key's among them.
    let mut to_shard = Vec::new();
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
            Action::CreateTimeSeries { timeseries, .. } => {
                let create = db
                    .create_collection(&collection)
                    .timeseries(timeseries.options());
                let create = match timeseries.expire_after_seconds {
                    Some(secs) => create.expire_after_seconds(std::time::Duration::from_secs(secs)),
                    None => create,
                };
                create.await.map_err(|e| {
                    Error::from_server(e, "create time-series collection", &collection)
                })?;
            }
            Action::UpdateValidator {
                wanted, violators, ..
            } => {
                let level = match options.on_violations {
                    OnViolations::ValidateModerate if !violators.is_empty() => "moderate",
                    _ => "strict",
                };
                db.run_command(doc! {
                    "collMod": &collection,
                    "validator": wanted.clone(),
                    "validationLevel": level,
                })
                .await
                .map_err(|e| Error::from_server(e, "update the validator of", &collection))?;
            }
            Action::ValidationLevel { violators, .. } => {
                if !violators.is_empty() && options.on_violations != OnViolations::Apply {
                    report.left_alone.push(action);
                    continue;
                }
                db.run_command(doc! { "collMod": &collection, "validationLevel": "strict" })
                    .await
                    .map_err(|e| {
                        Error::from_server(e, "set the validation level of", &collection)
                    })?;
            }
            Action::CreateIndex { spec, .. } => {
                to_create
                    .entry(collection)
                    .or_default()
                    .push((spec.clone(), false));
            }
            Action::IndexVisibility { name, hidden, .. } => {
                db.run_command(doc! {
                    "collMod": &collection,
                    "index": { "name": name.as_str(), "hidden": *hidden },
                })
                .await
                .map_err(|e| Error::from_server(e, "hide or unhide an index of", &collection))?;
            }
            Action::ConflictingIndex { server, wanted, .. } => {
                coll.drop_index(&server.name)
                    .await
                    .map_err(|e| Error::from_server(e, "drop index on", &collection))?;
                done.push(format!(
                    "the index `{}` of `{collection}` was dropped, to be built again as the \
                     model declares it",
                    server.name
                ));
                to_create
                    .entry(collection)
                    .or_default()
                    .push(((**wanted).clone(), true));
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
            // Never converted: reported alone.
            Action::TimeSeriesDiffers { .. } | Action::ShardKeyDiffers { .. } => {
                report.left_alone.push(action);
                continue;
            }
            Action::ShardCollection { .. } => {
                to_shard.push(action);
                continue;
            }
        }
        if let Some(words) = done_words(&action) {
            done.push(words);
        }
        report.applied.push(action);
    }
    for (collection, specs) in to_create {
        create_indexes(db, &collection, specs, &mut done).await?;
    }
    for action in to_shard {
        crate::setup::cluster::shard(db.client(), action.collection(), action.sharding_commands())
            .await?;
        report.applied.push(action);
    }
    Ok(report)
}

/// Builds the indexes of `collection`: one `createIndexes` for them all.
/// When the server refuses it for an index's sake, they are sent again one
/// by one, in order, to find the index refused: those before it are built,
/// and the error ([`Error::SetupRefused`]) names it, its keys and the step,
/// and lists what was done.
async fn create_indexes(
    db: &Database,
    collection: &str,
    specs: Vec<(IndexSpec, bool)>,
    done: &mut Vec<String>,
) -> Result<()> {
    let coll = db.collection::<BsonDocument>(collection);
    let models = specs.iter().map(|(spec, _)| spec.to_index_model());
    let Err(batch) = coll.create_indexes(models).await else {
        done.extend(specs.iter().map(|(spec, _)| built(collection, spec)));
        return Ok(());
    };
    let batch = Error::from_server(batch, "create indexes on", collection);
    if !refuses_the_index(&batch) {
        return Err(batch);
    }
    for (spec, replacing) in specs {
        if let Err(e) = coll.create_index(spec.to_index_model()).await {
            let reason = Error::from_server(e, "create an index on", collection);
            if !refuses_the_index(&reason) {
                return Err(reason);
            }
            let step = if replacing {
                format!("build the index {spec} again (the server's index was dropped above)")
            } else {
                format!("create index {spec}")
            };
            return Err(Error::SetupRefused {
                collection: collection.to_owned(),
                step,
                reason: Box::new(reason),
                done: std::mem::take(done),
            });
        }
        done.push(built(collection, &spec));
    }
    // Each was accepted alone: what the server refused was the batch.
    Ok(())
}

/// A refusal of the index itself (a code of the server's), not of the
/// user, the connection or a concurrent write.
fn refuses_the_index(err: &Error) -> bool {
    err.code().is_some()
        && !matches!(
            err,
            Error::PermissionDenied { .. }
                | Error::AuthenticationFailed { .. }
                | Error::Unreachable { .. }
                | Error::WriteConflict { .. }
        )
        && !err.has_label(crate::error::label::TRANSIENT_TRANSACTION_ERROR)
}

/// "the index `a_1` of `tickets` was built".
fn built(collection: &str, spec: &IndexSpec) -> String {
    format!("the index `{}` of `{collection}` was built", spec.name)
}

/// A step applied, as a sentence of what it did (index builds are told
/// once built: [`built`]).
fn done_words(action: &Action) -> Option<String> {
    let c = action.collection();
    Some(match action {
        Action::CreateCollection { .. } => format!("the collection `{c}` was created"),
        Action::CreateTimeSeries { .. } => format!("the time series `{c}` was created"),
        Action::UpdateValidator { .. } => format!("the validator of `{c}` was updated"),
        Action::ValidationLevel { .. } => format!("`{c}` was set to strict validation"),
        Action::IndexVisibility { name, hidden, .. } => format!(
            "the index `{name}` of `{c}` was {}",
            if *hidden { "hidden" } else { "unhidden" }
        ),
        Action::ExtraIndex { index, .. } => {
            format!("the index `{}` of `{c}` was dropped", index.name)
        }
        _ => return None,
    })
}

/// The sharding steps of the models that declare a shard key: nothing is
/// sent when none does; otherwise `hello`, and on a mongos one `find` of
/// `config.collections`.
async fn plan_sharding(
    db: &Database,
    models: &BTreeMap<&'static str, &ModelInfo>,
    actions: &mut Vec<Action>,
    unsharded: &mut Vec<crate::setup::step::Unsharded>,
) -> Result<()> {
    use crate::setup::cluster;
    let wanted: Vec<(&str, crate::model::shard::ShardKey)> = models
        .iter()
        .filter_map(|(collection, model)| Some((*collection, model.shard_key?)))
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let deployment = cluster::Deployment::from_hello(&cluster::hello(db.client()).await?);
    let sharded = if deployment.mongos {
        let namespaces = wanted
            .iter()
            .map(|(collection, _)| format!("{}.{collection}", db.name()))
            .collect();
        cluster::sharded_collections(db.client(), namespaces).await?
    } else {
        BTreeMap::new()
    };
    cluster::plan(db.name(), deployment, &wanted, &sharded, actions, unsharded);
    Ok(())
}

/// The models by collection, one each ([`Schema::check`] has refused two
/// on one collection).
fn by_collection(models: &[ModelInfo]) -> BTreeMap<&'static str, &ModelInfo> {
    models.iter().map(|m| (m.collection, m)).collect()
}

/// What setup compares of a collection on the server.
struct ServerCollection {
    validator: Option<BsonDocument>,
    /// The validation level when it is not `strict` (the default).
    level: Option<String>,
    /// Its time-series options, when it is a time series.
    timeseries: Option<mongodb::options::TimeseriesOptions>,
    /// Its `expireAfterSeconds`.
    expire: Option<std::time::Duration>,
}

/// The drift between a collection and a model when either is a time
/// series: another kind, or other options. `None` when they agree.
fn timeseries_drift(
    collection: &str,
    server: &ServerCollection,
    wanted: Option<&crate::model::timeseries::TimeSeriesSpec>,
) -> Option<Action> {
    let described = match &server.timeseries {
        Some(options) => crate::model::timeseries::describe_server(options, server.expire),
        None => "a plain collection".to_owned(),
    };
    let agree = match (wanted, &server.timeseries) {
        (Some(spec), Some(options)) => spec.matches(options, server.expire),
        _ => false,
    };
    (!agree).then(|| Action::TimeSeriesDiffers {
        collection: collection.to_owned(),
        server: described,
        wanted: wanted.map_or_else(|| "a plain collection".to_owned(), |s| s.describe()),
    })
}

/// The server's indexes of a collection without the one a time series
/// makes itself on its meta and time fields (not a model's to declare).
fn without_implicit(
    server: Option<&ServerCollection>,
    indexes: Vec<ServerIndex>,
) -> Vec<ServerIndex> {
    let Some(options) = server.and_then(|s| s.timeseries.as_ref()) else {
        return indexes;
    };
    let Some(meta) = options.meta_field.as_deref() else {
        return indexes;
    };
    let implicit: BsonDocument = doc! { meta: 1, options.time_field.as_str(): 1 };
    indexes
        .into_iter()
        .filter(|index| !crate::model::index::server::same_key_order(&index.keys, &implicit))
        .collect()
}

/// Every collection of the database with its validator and validation
/// level (one `listCollections`).
async fn list_collections(db: &Database) -> Result<BTreeMap<String, ServerCollection>> {
    let specs: Vec<_> = db
        .list_collections()
        .await
        .map_err(|e| Error::from_server(e, "list collections of", db.name()))?
        .try_collect()
        .await
        .map_err(|e| Error::from_server(e, "list collections of", db.name()))?;
    Ok(specs.into_iter().map(server_collection).collect())
}

/// What setup compares of one collection `listCollections` listed.
fn server_collection(s: mongodb::results::CollectionSpecification) -> (String, ServerCollection) {
    let level = match s.options.validation_level {
        None | Some(ValidationLevel::Strict) => None,
        Some(ValidationLevel::Moderate) => Some("moderate".to_owned()),
        Some(ValidationLevel::Off) => Some("off".to_owned()),
        Some(other) => Some(format!("{other:?}").to_lowercase()),
    };
    let timeseries = match s.collection_type {
        mongodb::results::CollectionType::Timeseries => s.options.timeseries,
        _ => None,
    };
    let collection = ServerCollection {
        validator: s.options.validator,
        level,
        timeseries,
        expire: s.options.expire_after_seconds,
    };
    (s.name, collection)
}

/// The documents of `collection` that fail `validator` (a `$jsonSchema`
/// document): one count and one `find` of the first `_id`s, both with the
/// filter `{$nor: [validator]}`.
async fn violators(db: &Database, collection: &str, validator: &BsonDocument) -> Result<Violators> {
    let coll = db.collection::<BsonDocument>(collection);
    let failing = doc! { "$nor": [validator.clone()] };
    let err = |e| {
        Error::from_server(
            e,
            "count the documents failing the validator of",
            collection,
        )
    };
    let count = coll.count_documents(failing.clone()).await.map_err(err)?;
    if count == 0 {
        return Ok(Violators::default());
    }
    let found: Vec<BsonDocument> = coll
        .find(failing)
        .projection(doc! { "_id": 1 })
        .sort(doc! { "_id": 1 })
        .limit(VIOLATOR_SAMPLE as i64)
        .await
        .map_err(err)?
        .try_collect()
        .await
        .map_err(err)?;
    let ids = found
        .into_iter()
        .filter_map(|mut d| d.remove("_id"))
        .collect::<Vec<Bson>>();
    Ok(Violators { count, ids })
}

async fn list_indexes(db: &Database, collection: &str) -> Result<Vec<ServerIndex>> {
    let models = crate::query::served::listed_indexes(db, collection).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A `listCollections` entry as a mongos returns it for a sharded
    /// collection (the shape of the manual's `listCollections` output: the
    /// options as created, `info` with the collection's `uuid`, `idIndex`),
    /// with the validator setup created.
    fn mongos_entry(validator: BsonDocument, level: &str) -> BsonDocument {
        doc! {
            "name": "messages",
            "type": "collection",
            "options": { "validator": validator, "validationLevel": level, "validationAction": "error" },
            "info": { "readOnly": false, "uuid": bson::Binary { subtype: bson::spec::BinarySubtype::Uuid, bytes: vec![7; 16] } },
            "idIndex": { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
        }
    }

    #[test]
    fn a_listed_collection_of_a_mongos_is_compared_as_a_replica_sets() {
        let wanted =
            doc! { "$jsonSchema": { "bsonType": "object", "required": ["_id", "roomId"] } };
        let spec = bson::deserialize_from_document(mongos_entry(wanted.clone(), "strict")).unwrap();
        let (name, listed) = server_collection(spec);
        assert_eq!(name, "messages");
        assert!(crate::model::index::server::same_validator(
            listed.validator.as_ref(),
            &wanted
        ));
        assert_eq!(listed.level, None, "strict is the default");
        assert!(listed.timeseries.is_none());
        let moderate = bson::deserialize_from_document(mongos_entry(wanted, "moderate")).unwrap();
        assert_eq!(
            server_collection(moderate).1.level.as_deref(),
            Some("moderate")
        );
    }
}
