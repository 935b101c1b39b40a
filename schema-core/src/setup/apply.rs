//! Applying a plan: the steps sent in order (collections, validators,
//! indexes, sharding), what setup may do beyond creating what is missing
//! ([`SyncOptions`], [`OnViolations`]) and what it did ([`SyncReport`]).

use crate::error::{Error, Result};
use crate::model::index::IndexSpec;
use crate::setup::plan::Plan;
use crate::setup::step::Step;
use bson::{doc, Document as BsonDocument};
use mongodb::Database;
use std::collections::BTreeMap;

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
/// (counted by the plan: [`Step::UpdateValidator`]'s `violators`).
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
    /// no document fails ([`Step::ValidationLevel`]).
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
    pub applied: Vec<Step>,
    /// Drift reported and left alone.
    pub left_alone: Vec<Step>,
}

/// Applies a plan. Refuses (before writing anything) when it holds a
/// conflicting index and `replace_conflicting` is off, or a validator change
/// that existing documents fail and `on_violations` is
/// [`OnViolations::Refuse`].
pub(crate) async fn apply(
    db: &Database,
    plan: Plan,
    options: SyncOptions,
    keys: &crate::crypt::Keys,
) -> Result<SyncReport> {
    if options.on_violations == OnViolations::Refuse {
        if let Some(Step::UpdateValidator {
            collection,
            violators,
            ..
        }) = plan
            .steps
            .iter()
            .find(|a| matches!(a, Step::UpdateValidator { violators, .. } if !violators.is_empty()))
        {
            return Err(Error::ValidatorRejectsExisting {
                collection: collection.clone(),
                count: violators.count,
                ids: violators.id_texts(),
            });
        }
    }
    if !options.replace_conflicting {
        if let Some(Step::ConflictingIndex {
            collection,
            server,
            wanted,
        }) = plan
            .steps
            .iter()
            .find(|a| matches!(a, Step::ConflictingIndex { .. }))
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
    for action in plan.steps {
        let collection = action.collection().to_owned();
        let coll = db.collection::<BsonDocument>(&collection);
        match &action {
            Step::CreateCollection { validator, .. } => {
                db.create_collection(&collection)
                    .validator(validator.clone())
                    .await
                    .map_err(|e| Error::from_server(e, "create collection", &collection))?;
            }
            Step::CreateTimeSeries { timeseries, .. } => {
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
            Step::UpdateValidator {
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
            Step::ValidationLevel { violators, .. } => {
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
            Step::PreImages { .. } => {
                db.run_command(doc! {
                    "collMod": &collection,
                    "changeStreamPreAndPostImages": { "enabled": true },
                })
                .await
                .map_err(|e| Error::from_server(e, "turn on the pre-images of", &collection))?;
            }
            Step::CreateIndex { spec, .. } => {
                to_create
                    .entry(collection)
                    .or_default()
                    .push((spec.clone(), false));
            }
            Step::IndexVisibility { name, hidden, .. } => {
                db.run_command(doc! {
                    "collMod": &collection,
                    "index": { "name": name.as_str(), "hidden": *hidden },
                })
                .await
                .map_err(|e| Error::from_server(e, "hide or unhide an index of", &collection))?;
            }
            Step::ConflictingIndex { server, wanted, .. } => {
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
            Step::ExtraIndex { index, .. } => {
                if !options.drop_extra_indexes {
                    report.left_alone.push(action);
                    continue;
                }
                coll.drop_index(&index.name)
                    .await
                    .map_err(|e| Error::from_server(e, "drop index on", &collection))?;
            }
            // Never converted: reported alone.
            Step::TimeSeriesDiffers { .. } | Step::ShardKeyDiffers { .. } => {
                report.left_alone.push(action);
                continue;
            }
            Step::ShardCollection { .. } => {
                to_shard.push(action);
                continue;
            }
            Step::CreateDataKey { key, .. } => keys.create_key(key).await?,
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
pub(super) async fn create_indexes(
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
pub(super) fn refuses_the_index(err: &Error) -> bool {
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
pub(super) fn built(collection: &str, spec: &IndexSpec) -> String {
    format!("the index `{}` of `{collection}` was built", spec.name)
}

/// A step applied, as a sentence of what it did (index builds are told
/// once built: [`built`]).
pub(super) fn done_words(action: &Step) -> Option<String> {
    let c = action.collection();
    Some(match action {
        Step::CreateCollection { .. } => format!("the collection `{c}` was created"),
        Step::CreateTimeSeries { .. } => format!("the time series `{c}` was created"),
        Step::UpdateValidator { .. } => format!("the validator of `{c}` was updated"),
        Step::ValidationLevel { .. } => format!("`{c}` was set to strict validation"),
        Step::PreImages { .. } => format!("`{c}` keeps pre-images"),
        Step::CreateDataKey { key, .. } => format!("the data key `{key}` was created in `{c}`"),
        Step::IndexVisibility { name, hidden, .. } => format!(
            "the index `{name}` of `{c}` was {}",
            if *hidden { "hidden" } else { "unhidden" }
        ),
        Step::ExtraIndex { index, .. } => {
            format!("the index `{}` of `{c}` was dropped", index.name)
        }
        _ => return None,
    })
}
