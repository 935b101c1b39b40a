//! Running a `find` or an `aggregate` in the caller's session (or in none) and collecting the
//! results: the one place the two cursor kinds are told apart.

use bson::{RawDocument, RawDocumentBuf};
use futures_util::TryStreamExt;
use mongodb::action::{Aggregate, Find};
use mongodb::ClientSession;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

/// Sends `find` (in `session` when given) and hands each document to `each`
/// where it lies in its batch, never copied; a driver error is reported as
/// `driver` makes it, an error of `each` ends the read.
pub(crate) async fn each_raw(
    find: Find<'_, RawDocumentBuf>,
    session: Option<&mut ClientSession>,
    mut each: impl FnMut(&RawDocument) -> Result<()>,
    driver: impl Fn(mongodb::error::Error) -> Error,
) -> Result<()> {
    match session {
        Some(s) => {
            let mut cursor = find.session(&mut *s).await.map_err(&driver)?;
            while cursor.advance(s).await.map_err(&driver)? {
                each(cursor.current())?;
            }
        }
        None => {
            let mut cursor = find.await.map_err(&driver)?;
            while cursor.advance().await.map_err(&driver)? {
                each(cursor.current())?;
            }
        }
    }
    Ok(())
}

/// Sends `find` (in `session` when given) and reads every batch.
pub(crate) async fn collect<T>(
    find: Find<'_, T>,
    session: Option<&mut ClientSession>,
) -> mongodb::error::Result<Vec<T>>
where
    T: DeserializeOwned + Send + Sync,
{
    match session {
        Some(s) => {
            let mut cursor = find.session(&mut *s).await?;
            cursor.stream(s).try_collect().await
        }
        None => find.await?.try_collect().await,
    }
}

/// Sends `aggregate` (in `session` when given) and reads every batch.
pub(crate) async fn collect_aggregate<T>(
    aggregate: Aggregate<'_>,
    session: Option<&mut ClientSession>,
) -> mongodb::error::Result<Vec<T>>
where
    T: DeserializeOwned + Send + Sync,
{
    let aggregate = aggregate.with_type::<T>();
    match session {
        Some(s) => {
            let mut cursor = aggregate.session(&mut *s).await?;
            cursor.stream(s).try_collect().await
        }
        None => aggregate.await?.try_collect().await,
    }
}
