//! Writing a pipeline's rows into a model's collection: `$merge` on `_id`
//! ([`Aggregate::merge_into`]) or `$out` ([`Aggregate::out`]), only when
//! the row type is the model written (`#[derive(Document, Row)]`), so the
//! rows are its documents: the compiler checked their fields against the
//! group, their arrays against the model's `#[embed(max = N)]`, and the
//! server checks them against its validator as it writes.

use bson::doc;

use super::flow::{Rows, Unchecked};
use super::pipeline::{refused, Aggregate, Stage};
use super::row::Row;
use crate::error::{Error, Result};
use crate::model::schema_version::VERSION_FIELD;
use crate::model::Document;

/// A row type that is the model `T` a pipeline writes: `T` itself.
#[diagnostic::on_unimplemented(
    message = "the rows are `{Self}`, and `merge_into`/`out` write them as `{T}` documents",
    label = "write the row type's own collection: `merge_into::<{Self}>()`",
    note = "a pipeline writes only into the model its row type is: derive both on one struct, `#[derive(Document, Row)]` with `#[document(collection = ..)]` and `#[row(of = ..)]`"
)]
pub trait WritesAs<T> {}
impl<T> WritesAs<T> for T {}

impl<'a, M: Document, R: Row + Document> Aggregate<'a, M, Rows<R>> {
    /// `$merge` of the rows into `T`'s collection on `_id` (a row whose
    /// `_id` is stored replaces the document, any other is inserted); `T`
    /// is the row type itself. A versioned `T`'s rows are stamped with its
    /// current version. Refused before sending for a time-series `T` (the
    /// server writes none with `$merge`). The server checks each row
    /// against `T`'s validator.
    pub async fn merge_into<T: Document>(self) -> Result<()>
    where
        R: WritesAs<T>,
    {
        let merge = doc! { "$merge": {
            "into": T::COLLECTION,
            "on": "_id",
            "whenMatched": "replace",
            "whenNotMatched": "insert",
        } };
        self.write::<T>("merge_into", merge).await
    }

    /// `$out`: `T`'s collection replaced by the rows (its indexes and
    /// options kept, as the server does); `T` is the row type itself.
    /// Refused before sending for a time-series `T`.
    pub async fn out<T: Document>(self) -> Result<()>
    where
        R: WritesAs<T>,
    {
        self.write::<T>("out", doc! { "$out": T::COLLECTION }).await
    }

    async fn write<T: Document>(self, how: &str, stage: bson::Document) -> Result<()> {
        if T::TIMESERIES.is_some() {
            return Err(refused::<M>(format!(
                "`{how}::<{}>()` writes a time series, which the server fills by inserts only: insert the rows with `Repo::<{}>::insert_many`",
                T::NAME,
                T::NAME
            )));
        }
        let mut pipeline = self;
        if let Some(versions) = T::VERSIONS {
            let version = i32::try_from(versions.current).unwrap_or(i32::MAX);
            pipeline = pipeline.then(Some(Stage::Unchecked(
                doc! { "$set": { VERSION_FIELD: version } },
            )));
        }
        let written = pipeline.then::<Unchecked<M>>(Some(Stage::Unchecked(stage)));
        match written.all().await {
            Ok(_) => Ok(()),
            // The rows were refused by the target's validator, not the source's.
            Err(Error::ValidationFailed { id, rules, .. }) => Err(Error::ValidationFailed {
                collection: T::COLLECTION.to_owned(),
                id,
                rules,
            }),
            Err(e) => Err(e),
        }
    }
}
