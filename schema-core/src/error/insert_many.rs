//! What an `insert_many` that was partly refused reports: every refused
//! document (its index, `_id` and why) and which documents were inserted.

use std::fmt;

use super::Error;

/// The outcome of an `insert_many` in which the server refused some
/// documents (see [`Error::InsertMany`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct InsertManyFailure {
    /// Collection name.
    pub collection: &'static str,
    /// Whether the insert was ordered (it stopped at the first refusal).
    pub ordered: bool,
    /// How many documents were given.
    pub total: usize,
    /// The indexes (in the slice given) of the documents inserted, in order.
    /// In a transaction, inserted in it: kept only if it commits.
    pub inserted: Vec<usize>,
    /// The documents refused, in index order.
    pub failed: Vec<FailedInsert>,
}

/// One document an `insert_many` refused.
#[derive(Debug)]
#[non_exhaustive]
pub struct FailedInsert {
    /// Its index in the slice given.
    pub index: usize,
    /// Its `_id` as text: a string as it is, an `ObjectId` in hex, any other
    /// value as relaxed extended JSON.
    pub id: String,
    /// Why: [`Error::DuplicateKey`], [`Error::ValidationFailed`], or
    /// [`Error::WriteRefused`] for a code the runtime has no variant for.
    pub reason: Error,
}

impl InsertManyFailure {
    /// The indexes of the documents neither inserted nor refused: those
    /// after the first refusal of an ordered insert (none when unordered).
    pub fn not_tried(&self) -> Vec<usize> {
        (0..self.total)
            .filter(|i| !self.inserted.contains(i) && !self.failed.iter().any(|f| f.index == *i))
            .collect()
    }
}

/// The most refusals a message lists.
const LISTED: usize = 5;

impl fmt::Display for InsertManyFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "insert_many into `{}` ({}): {} of {} documents inserted, {} refused",
            self.collection,
            if self.ordered { "ordered" } else { "unordered" },
            self.inserted.len(),
            self.total,
            self.failed.len()
        )?;
        let not_tried = self.not_tried().len();
        if not_tried > 0 {
            write!(f, ", {not_tried} not tried after the first refusal")?;
        }
        for (n, failed) in self.failed.iter().take(LISTED).enumerate() {
            let sep = if n == 0 { ": " } else { "; " };
            write!(
                f,
                "{sep}#{} (_id `{}`): {}",
                failed.index, failed.id, failed.reason
            )?;
        }
        if self.failed.len() > LISTED {
            write!(f, "; and {} more", self.failed.len() - LISTED)?;
        }
        Ok(())
    }
}
