//! [`ChangeError`]: why a typed change stream yielded an error or stopped.
//! Its messages name the collection and the document's `_id`, never a
//! stored value.

use std::fmt;

/// Why a change stream's resume point is gone: the policy
/// (`OnLost`) decides what the stream does then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LostBecause {
    /// The point to resume from is older than the server's history (the
    /// oplog): code 286, `ChangeStreamHistoryLost`. Resuming from it again
    /// can never succeed.
    HistoryLost,
    /// The watched collection was dropped or renamed (or its database
    /// dropped): the server ended the stream with an `invalidate` event.
    Invalidated,
}

impl fmt::Display for LostBecause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LostBecause::HistoryLost => {
                "the point to resume from is older than the server's history (code 286, \
                 ChangeStreamHistoryLost)"
            }
            LostBecause::Invalidated => "the collection was dropped or renamed (invalidate)",
        })
    }
}

/// A typed change stream's error ([`Error::Change`](super::Error::Change)).
#[derive(Debug)]
#[non_exhaustive]
pub enum ChangeError {
    /// A change could not be read as the model: the stored document (or
    /// its `_id`) does not fit it. The message names the `_id`, the
    /// operation and, when known, the field; never a stored value.
    Undecodable {
        /// The model's Rust name.
        model: &'static str,
        /// Collection name.
        collection: &'static str,
        /// The document's `_id` as text.
        id: String,
        /// The change's operation (`insert`, `update`, ...).
        operation: String,
        /// What did not fit (a field's path, a version), without its value.
        why: String,
    },
    /// The stream stopped because its resume point is gone, as its
    /// `OnLost::Stop` policy asks.
    Lost {
        /// Collection name.
        collection: &'static str,
        /// Why.
        because: LostBecause,
        /// The server's wall time of the last change the stream delivered,
        /// when it delivered one: the changes after it are not delivered.
        last: Option<bson::DateTime>,
    },
    /// The stream could not be resumed after a network error or a server
    /// restart within its recovery's attempts.
    GaveUp {
        /// Collection name.
        collection: &'static str,
        /// How many times it tried to open the stream again.
        attempts: u32,
        /// The last attempt's error.
        last: Box<super::Error>,
    },
}

impl fmt::Display for ChangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChangeError::Undecodable {
                model,
                collection,
                id,
                operation,
                why,
            } => write!(
                f,
                "cannot read the {operation} change of the `{collection}` document with _id \
                 `{id}` as a `{model}`: {why} (its stored values are left out of this message)"
            ),
            ChangeError::Lost {
                collection,
                because,
                last,
            } => {
                let last = match last {
                    Some(at) => format!("the last change delivered was at {at}"),
                    None => "no change was delivered".to_owned(),
                };
                write!(
                    f,
                    "the change stream of `{collection}` stopped: {because}; {last}; the \
                     changes after it were not delivered: resync the consumer, or watch with \
                     `OnLost::RestartFromNow` to go on from now with the gap reported"
                )
            }
            ChangeError::GaveUp {
                collection,
                attempts,
                last,
            } => write!(
                f,
                "the change stream of `{collection}` could not be resumed after {attempts} \
                 attempts: {last}; watch again from its last token to go on where it stopped"
            ),
        }
    }
}
