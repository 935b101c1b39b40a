//! What the server has, read for a plan: its collections (with their
//! options and time-series settings), indexes, the documents a validator
//! would refuse, and whether it runs transactions.

use crate::error::{Error, Result};
use crate::model::index::server::ServerIndex;
use crate::setup::schema::{ModelInfo, Schema};
use crate::setup::step::{Step, Violators, VIOLATOR_SAMPLE};
use bson::{doc, Bson, Document as BsonDocument};
use futures_util::TryStreamExt;
use mongodb::options::ValidationLevel;
use mongodb::Database;
use std::collections::BTreeMap;

/// The sharding steps of the models that declare a shard key: nothing is
/// sent when none does; otherwise `hello`, and on a mongos one `find` of
/// `config.collections`.
pub(super) async fn plan_sharding(
    db: &Database,
    models: &BTreeMap<&'static str, &ModelInfo>,
    actions: &mut Vec<Step>,
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
pub(super) fn by_collection(models: &[ModelInfo]) -> BTreeMap<&'static str, &ModelInfo> {
    models.iter().map(|m| (m.collection, m)).collect()
}

/// What setup compares of a collection on the server.
pub(super) struct ServerCollection {
    pub(super) validator: Option<BsonDocument>,
    /// The validation level when it is not `strict` (the default).
    pub(super) level: Option<String>,
    /// Its time-series options, when it is a time series.
    pub(super) timeseries: Option<mongodb::options::TimeseriesOptions>,
    /// Its `expireAfterSeconds`.
    pub(super) expire: Option<std::time::Duration>,
    /// Whether it keeps pre-images (`changeStreamPreAndPostImages`).
    pub(super) pre_images: bool,
}

/// The drift between a collection and a model when either is a time
/// series: another kind, or other options. `None` when they agree.
pub(super) fn timeseries_drift(
    collection: &str,
    server: &ServerCollection,
    wanted: Option<&crate::model::timeseries::TimeSeriesSpec>,
) -> Option<Step> {
    let described = match &server.timeseries {
        Some(options) => crate::model::timeseries::describe_server(options, server.expire),
        None => "a plain collection".to_owned(),
    };
    let agree = match (wanted, &server.timeseries) {
        (Some(spec), Some(options)) => spec.matches(options, server.expire),
        _ => false,
    };
    (!agree).then(|| Step::TimeSeriesDiffers {
        collection: collection.to_owned(),
        server: described,
        wanted: wanted.map_or_else(|| "a plain collection".to_owned(), |s| s.describe()),
    })
}

/// The server's indexes of a collection without the one a time series
/// makes itself on its meta and time fields (not a model's to declare).
pub(super) fn without_implicit(
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
pub(super) async fn list_collections(db: &Database) -> Result<BTreeMap<String, ServerCollection>> {
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
pub(super) fn server_collection(
    s: mongodb::results::CollectionSpecification,
) -> (String, ServerCollection) {
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
        pre_images: s
            .options
            .change_stream_pre_and_post_images
            .is_some_and(|images| images.enabled),
    };
    (s.name, collection)
}

/// The documents of `collection` that fail `validator` (a `$jsonSchema`
/// document), among those `within` matches when given (the audit's
/// sample): one count and one `find` of the first `_id`s, both with the
/// filter `{$nor: [validator]}`.
pub(crate) async fn violators(
    db: &Database,
    collection: &str,
    validator: &BsonDocument,
    within: Option<BsonDocument>,
) -> Result<Violators> {
    let coll = db.collection::<BsonDocument>(collection);
    let failing = match within {
        None => doc! { "$nor": [validator.clone()] },
        Some(within) => doc! { "$and": [within, { "$nor": [validator.clone()] }] },
    };
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

pub(super) async fn list_indexes(db: &Database, collection: &str) -> Result<Vec<ServerIndex>> {
    let models = crate::query::server_indexes::listed_indexes(db, collection).await?;
    Ok(models.iter().map(ServerIndex::from_model).collect())
}

/// A schema with two-sided links needs a replica set (transactions): say so
/// at setup time rather than at the first link.
pub(super) async fn check_transactions(schema: &Schema, db: &Database) -> Result<()> {
    let models = schema.transactional_models();
    if models.is_empty() {
        return Ok(());
    }
    crate::txn::require_transactions(db.client(), &models).await
}
