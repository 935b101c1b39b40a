//! A pipeline reads documents as they are stored: a stored document of an
//! earlier shape is upgraded only when a query reads it into the model, so
//! no stage of a pipeline (a `$match`, a `$group`, a `$project`) sees it
//! upgraded. On a model that names earlier shapes, a pipeline is therefore
//! sent only once none is stored: one query on the index of the version
//! field (which setup creates for such a model) finds the first document
//! at another version, and its version refuses the pipeline, naming the
//! migration that finishes the job.

use bson::{doc, RawDocumentBuf};

use crate::error::{Error, Result};
use crate::model::schema_version::{stored_version, VERSION_FIELD};
use crate::model::Document;
use crate::repo::Repo;

/// Refused when a document of an earlier version of `M` is stored.
pub(super) async fn require_current<M: Document>(repo: &Repo<M>) -> Result<()> {
    let Some(versions) = M::VERSIONS.filter(|v| v.first < v.current) else {
        return Ok(());
    };
    let current = i64::from(versions.current); // compared as a number: an int or a long
    let found: Option<RawDocumentBuf> = repo
        .raw_docs()
        .find_one(doc! { VERSION_FIELD: { "$ne": current } })
        .projection(doc! { VERSION_FIELD: 1 })
        .await
        .map_err(|e| {
            Error::from_server(e, "find a document of an earlier version in", M::COLLECTION)
        })?;
    let Some(found) = found else {
        return Ok(());
    };
    let version = stored_version(&found).map_or_else(|| "no".to_owned(), |v| v.to_string());
    Err(Error::AggregateRefused {
        collection: M::COLLECTION,
        reason: format!(
        "documents of `{}` at version {version} are stored (the current one is {}), and a pipeline reads stored documents, which are upgraded only once read into the model: finish the migration first (`Repo::migrate`, or `Schema::migrate`)",
        M::NAME,
            versions.current
        ),
    })
}
