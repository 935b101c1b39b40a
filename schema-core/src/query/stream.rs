//! [`DocStream`]: the documents of a query, decoded one at a time from the
//! driver's cursor.

use std::pin::Pin;
use std::task::{Context, Poll};

use bson::{RawDocument, RawDocumentBuf};
use futures_util::future::BoxFuture;
use futures_util::stream::{BoxStream, Stream, StreamExt};
use mongodb::{ClientSession, Cursor, SessionCursor};

use crate::crypt::Keys;
use crate::error::{Error, Result};
use crate::model::Document;

/// The documents a query returns, as a [`Stream`] of `Result<T>`.
///
/// It holds the driver's cursor, one batch at a time (the server's batch
/// size, or the query's `batch_size`), and decodes each document as it is
/// polled: memory stays flat however many documents match. Dropping it
/// closes the cursor (the driver sends `killCursors`).
#[must_use = "a stream does nothing until it is polled"]
pub struct DocStream<'a, T> {
    inner: BoxStream<'a, Result<T>>,
}

impl<'a, T: Send + 'a> DocStream<'a, T> {
    /// A stream over a cursor of raw documents, each decoded by `decode`;
    /// `err` turns a driver error into ours.
    pub(crate) fn new(
        cursor: Cursor<RawDocumentBuf>,
        decode: fn(&RawDocument) -> Result<T>,
        err: impl Fn(mongodb::error::Error) -> Error + Send + 'a,
    ) -> Self {
        let inner = cursor.map(move |item| item.map_err(&err).and_then(|raw| decode(&raw)));
        DocStream {
            inner: inner.boxed(),
        }
    }

    /// [`new`](Self::new) over a cursor that reads its batches in `session`.
    pub(crate) fn in_session(
        cursor: SessionCursor<RawDocumentBuf>,
        session: &'a mut ClientSession,
        decode: fn(&RawDocument) -> Result<T>,
        err: impl Fn(mongodb::error::Error) -> Error + Send + Sync + 'a,
    ) -> Self {
        let err = std::sync::Arc::new(err);
        let inner =
            futures_util::stream::unfold((cursor, session), move |(mut cursor, session)| {
                let err = err.clone();
                async move {
                    let item = cursor.next(session).await?;
                    let item = item.map_err(|e| err(e)).and_then(|raw| decode(&raw));
                    Some((item, (cursor, session)))
                }
            });
        DocStream {
            inner: inner.boxed(),
        }
    }

    /// [`new`](Self::new) for a model with encrypted fields: each document
    /// is decrypted by `open` with `keys` before `read` decodes it (see
    /// `crypt`); an error about one of `M`'s encrypted fields shows no
    /// value.
    pub(crate) fn unsealed<M: Document>(
        cursor: Cursor<RawDocumentBuf>,
        keys: Keys,
        open: Opener,
        read: fn(&RawDocument) -> Result<T>,
        err: impl Fn(mongodb::error::Error) -> Error + Send + 'a,
    ) -> Self {
        let inner = cursor
            .map(move |item| item.map_err(&err))
            .then(move |item| {
                let keys = keys.clone();
                async move { opened::<M, T>(&keys, item?, open, read).await }
            });
        DocStream {
            inner: inner.boxed(),
        }
    }

    /// [`in_session`](Self::in_session) for a model with encrypted fields
    /// (see [`unsealed`](Self::unsealed)).
    pub(crate) fn in_session_unsealed<M: Document>(
        cursor: SessionCursor<RawDocumentBuf>,
        session: &'a mut ClientSession,
        keys: Keys,
        open: Opener,
        read: fn(&RawDocument) -> Result<T>,
        err: impl Fn(mongodb::error::Error) -> Error + Send + Sync + 'a,
    ) -> Self {
        let err = std::sync::Arc::new(err);
        let inner =
            futures_util::stream::unfold((cursor, session), move |(mut cursor, session)| {
                let (err, keys) = (err.clone(), keys.clone());
                async move {
                    let item = cursor.next(session).await?;
                    let item = match item.map_err(|e| err(e)) {
                        Ok(raw) => opened::<M, T>(&keys, raw, open, read).await,
                        Err(e) => Err(e),
                    };
                    Some((item, (cursor, session)))
                }
            });
        DocStream {
            inner: inner.boxed(),
        }
    }

    /// A stream that yields `err` and ends.
    pub(crate) fn failed(err: Error) -> Self {
        DocStream {
            inner: futures_util::stream::once(async move { Err(err) }).boxed(),
        }
    }

    /// A stream that yields what `stream` yields.
    pub(crate) fn from_stream(stream: impl Stream<Item = Result<T>> + Send + 'a) -> Self {
        DocStream {
            inner: stream.boxed(),
        }
    }
}

impl<T> Stream for DocStream<'_, T> {
    type Item = Result<T>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<T>>> {
        self.inner.as_mut().poll_next(cx)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T> std::fmt::Debug for DocStream<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DocStream")
    }
}

/// How a document that may hold ciphertext is decrypted before it is
/// read: [`unseal_as`] a model's document (or a view of it), or a join's
/// two sides (see the aggregation's `lookup`). Public for the
/// aggregation's `Flow` trait only.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Opener(pub(crate) OpenFn);

pub(crate) type OpenFn =
    for<'k> fn(&'k Keys, RawDocumentBuf) -> BoxFuture<'k, Result<RawDocumentBuf>>;

/// The [`Opener`] of a stored document of `M`, or a view of it.
pub(crate) fn unseal_as<M: Document>() -> Opener {
    fn open<M: Document>(
        keys: &Keys,
        raw: RawDocumentBuf,
    ) -> BoxFuture<'_, Result<RawDocumentBuf>> {
        Box::pin(keys.unseal::<M>(raw))
    }
    Opener(open::<M>)
}

/// A document decrypted by `open`, read by `read`.
async fn opened<M: Document, T>(
    keys: &Keys,
    raw: RawDocumentBuf,
    open: Opener,
    read: fn(&RawDocument) -> Result<T>,
) -> Result<T> {
    let raw = (open.0)(keys, raw).await?;
    read(&raw).map_err(crate::crypt::redact::<M>)
}
