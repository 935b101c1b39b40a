//! Setup: make the server match the models. Creates missing collections with
//! their validators, updates changed validators with `collMod`, creates
//! missing indexes (one `createIndexes` per collection), and reports drift.
//! On a server that already matches it sends reads only. An index the
//! server refuses (an option it does not take, a unique index over keys
//! stored twice) stops setup with [`Error::SetupRefused`], naming the
//! collection, the index and its keys, and what was done before it.
//!
//! A validator change that existing documents fail is refused unless the
//! caller says how ([`OnViolations`](crate::OnViolations)): after a stricter validator is applied
//! at the default level (`strict`), every write to a document that fails it
//! is refused with code 121, even a `$set` of an unrelated field.

use futures_util::future::try_join_all;
use mongodb::Database;

use crate::error::{Error, Result};
use crate::model::index::server::same_validator;
use crate::model::schema_version::count_per_version;
use crate::setup::apply::{apply, SyncOptions, SyncReport};
use crate::setup::plan::{diff_indexes, Plan};
use crate::setup::read::*;
use crate::setup::schema::Schema;
use crate::setup::step::{Step, VersionCount};

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
    /// `config.collections` (see `shard`).
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
                Some(violators(db, name, &model.validator, None).await?)
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
                (None, Some(timeseries)) => actions.push(Step::CreateTimeSeries {
                    collection: collection.to_string(),
                    timeseries: *timeseries,
                }),
                (Some(server), wanted) if wanted.is_some() || server.timeseries.is_some() => {
                    if let Some(drift) = timeseries_drift(collection, server, wanted.as_ref()) {
                        actions.push(drift);
                    }
                }
                (None, None) => actions.push(Step::CreateCollection {
                    collection: collection.to_string(),
                    validator: model.validator.clone(),
                }),
                (Some(server), _)
                    if !same_validator(server.validator.as_ref(), &model.validator) =>
                {
                    actions.push(Step::UpdateValidator {
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
                ) => actions.push(Step::ValidationLevel {
                    collection: collection.to_string(),
                    current: level.clone(),
                    violators,
                }),
                (Some(_), _) => {}
            }
            // Another kind of collection than the model's: its indexes wait
            // for the collection to be made right.
            let kind_differs = matches!(actions.last(), Some(Step::TimeSeriesDiffers { collection: c, .. }) if c == collection);
            if !kind_differs {
                let server_indexes = without_implicit(existing.get(*collection), server_indexes);
                diff_indexes(collection, &model.indexes, &server_indexes, &mut actions);
            }
            // Pre-images, on a plain collection (a time series keeps none).
            let server = existing.get(*collection);
            let keeps_images = server.is_some_and(|s| s.pre_images);
            let plain = model.timeseries.is_none() && server.is_none_or(|s| s.timeseries.is_none());
            if model.pre_images && plain && !keeps_images {
                actions.push(Step::PreImages {
                    collection: collection.to_string(),
                });
            }
        }
        let mut unsharded = Vec::new();
        plan_sharding(db, &models, &mut actions, &mut unsharded).await?;
        for model in self.models() {
            for field in &model.encrypted {
                let (path, key) = (&field.path, &field.key);
                if let Some(vault) = self.keys.missing_key(model.name, path, key).await? {
                    actions.push(Step::CreateDataKey {
                        collection: vault,
                        key: key.clone(),
                        field: format!("`{path}` of `{}`", model.name),
                    });
                }
            }
        }
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
            steps: actions,
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
        apply(db, plan, options, &self.keys).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{doc, Document as BsonDocument};

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
