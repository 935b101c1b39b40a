//! The documents' sizes as stored: the largest, the 99th percentile, how
//! many are over 2 and 8 MiB, and the largest ones by `_id` with what one
//! small update to each rewrites.

use bson::RawDocument;
use serde::Serialize;

use super::arrays::Lengths;
use crate::error::raw_id;

/// Over 2 MiB, a document's every update rewrites megabytes (seed 000).
pub const LARGE: u64 = 2 * 1024 * 1024;

/// Over 8 MiB, a document is half way to the 16 MiB limit (a finding).
pub const HUGE: u64 = 8 * 1024 * 1024;

/// How many of the largest documents an audit names.
const LARGEST: usize = 5;

/// The sizes of a collection's documents, as stored (BSON bytes).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SizeAudit {
    /// The largest.
    pub max: u64,
    /// The 99th percentile.
    pub p99: u64,
    /// How many are over 2 MiB ([`LARGE`]), where every small update
    /// rewrites megabytes.
    pub over_2mib: u64,
    /// How many are over 8 MiB ([`HUGE`]), half way to the 16 MiB limit.
    pub over_8mib: u64,
    /// The `_id`s of the largest ones (at most five), largest first, as
    /// text, with their size: what one small update (a `$set` of one field)
    /// rewrites of each; never their content.
    pub largest: Vec<(String, u64)>,
}

impl SizeAudit {
    /// The largest documents over 2 MiB, each with what one small update to
    /// it rewrites (its whole size): `each small update to _id room1
    /// rewrites 16.7 MB`.
    pub fn costly_updates(&self) -> impl Iterator<Item = String> + '_ {
        self.largest
            .iter()
            .filter(|(_, size)| *size > LARGE)
            .map(|(id, size)| {
                format!(
                    "each small update to _id {id} rewrites {} (the whole document)",
                    megabytes(*size)
                )
            })
    }
}

/// `16.7 MB` (decimal megabytes, as a disk or a network counts them).
pub(super) fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

/// The sizes read so far.
#[derive(Debug, Default)]
pub(super) struct Sizes {
    lengths: Lengths,
    over_2mib: u64,
    over_8mib: u64,
    largest: Vec<(u64, String)>,
}

impl Sizes {
    pub(super) fn add(&mut self, raw: &RawDocument, seed: u64) {
        let size = raw.as_bytes().len() as u64;
        self.lengths.add(size, None, seed);
        self.over_2mib += u64::from(size > LARGE);
        self.over_8mib += u64::from(size > HUGE);
        if self.largest.len() == LARGEST && self.largest.last().is_some_and(|(s, _)| *s >= size) {
            return;
        }
        let at = self.largest.partition_point(|(s, _)| *s >= size);
        self.largest.insert(at, (size, raw_id(raw)));
        self.largest.truncate(LARGEST);
    }

    pub(super) fn audit(mut self) -> SizeAudit {
        SizeAudit {
            max: self.lengths.max(),
            p99: self.lengths.percentile(99),
            over_2mib: self.over_2mib,
            over_8mib: self.over_8mib,
            largest: self
                .largest
                .into_iter()
                .map(|(size, id)| (id, size))
                .collect(),
        }
    }
}
