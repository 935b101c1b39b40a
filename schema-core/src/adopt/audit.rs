//! An audit of a live database against the seeds' rules, declared models or
//! not, reading only: per collection, every array path with its length
//! distribution and the ones that look unbounded, and the documents' sizes
//! (the largest ones named by `_id`, never by content).
//!
//! ```no_run
//! # async fn demo(db: schema_core::mongodb::Database) -> schema_core::Result<()> {
//! use schema_core::{audit, AuditOptions};
//!
//! let report = audit(&db, &AuditOptions::default()).await?;
//! for array in report.unbounded() {
//!     println!("{array}");
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Each collection is read through `$sample` (1,000 documents by default,
//! [`AuditOptions::sample`]) or whole ([`AuditOptions::full_scan`]); what
//! is kept per array path is its largest length, its count and a reservoir
//! of at most [`RESERVOIR`] lengths for the percentiles, so memory stays
//! bounded whatever the collection's size.

use std::collections::BTreeMap;
use std::fmt;

use bson::{RawBsonRef, RawDocument};
use futures_util::TryStreamExt;
use mongodb::Database;

use super::sample;
use crate::error::{raw_id, Error, Result};

/// How many lengths of one array path are kept for its percentiles.
pub const RESERVOIR: usize = 10_000;

/// Over 2 MiB, a document's every update rewrites megabytes (seed 000).
const LARGE: u64 = 2 * 1024 * 1024;

/// Over 8 MiB, a document is half way to the 16 MiB limit.
const HUGE: u64 = 8 * 1024 * 1024;

/// How many of the largest documents an audit names.
const LARGEST: usize = 5;

/// What an audit reads.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditOptions {
    /// Documents sampled per collection with `$sample` (1,000 by default).
    pub sample: u32,
    /// Read every document instead of a sample.
    pub full_scan: bool,
    /// An array this long in any document looks unbounded (1,000 by
    /// default: the `max` a bounded array would need is past what a
    /// document should embed).
    pub long: u64,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            sample: 1_000,
            full_scan: false,
            long: 1_000,
        }
    }
}

/// What an audit found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Audit {
    /// Each collection read, by name (views and `system.*` left out).
    pub collections: Vec<CollectionAudit>,
}

impl Audit {
    /// The array paths that look unbounded, in every collection.
    pub fn unbounded(&self) -> impl Iterator<Item = &ArrayAudit> {
        self.collections
            .iter()
            .flat_map(|c| c.arrays.iter())
            .filter(|a| a.unbounded.is_some())
    }

    /// Whether anything looks unbounded or a document is over 8 MiB (the
    /// schema command's `audit` exits with 1 then).
    pub fn has_findings(&self) -> bool {
        self.unbounded().next().is_some() || self.collections.iter().any(|c| c.sizes.over_8mib > 0)
    }
}

/// What an audit found in one collection.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CollectionAudit {
    /// The collection.
    pub name: String,
    /// How many documents were read.
    pub read: u64,
    /// Every array path seen, in path order.
    pub arrays: Vec<ArrayAudit>,
    /// The documents' sizes.
    pub sizes: SizeAudit,
}

/// The lengths of one array path (`messages`, `items.tags` for the arrays
/// inside an array of sub-documents).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ArrayAudit {
    /// The collection.
    pub collection: String,
    /// The stored path.
    pub path: String,
    /// How many arrays were measured (documents holding it, times the items
    /// of an enclosing array).
    pub seen: u64,
    /// The longest.
    pub max: u64,
    /// The median length.
    pub p50: u64,
    /// The 99th percentile.
    pub p99: u64,
    /// Why it looks unbounded, and the two ways out; `None` when it does
    /// not.
    pub unbounded: Option<String>,
}

/// The sizes of a collection's documents, as stored (BSON bytes).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SizeAudit {
    /// The largest.
    pub max: u64,
    /// The 99th percentile.
    pub p99: u64,
    /// How many are over 2 MiB, where every small update rewrites megabytes.
    pub over_2mib: u64,
    /// How many are over 8 MiB, half way to the 16 MiB limit.
    pub over_8mib: u64,
    /// The `_id`s of the largest ones (at most five), largest first, as
    /// text; never their content.
    pub largest: Vec<(String, u64)>,
}

/// Audits every collection of `db`: reads only.
pub async fn audit(db: &Database, options: &AuditOptions) -> Result<Audit> {
    let names = sample::collections(db).await?;
    let mut collections = Vec::with_capacity(names.len());
    for name in names {
        collections.push(audit_collection(db, &name, options).await?);
    }
    Ok(Audit { collections })
}

async fn audit_collection(
    db: &Database,
    name: &str,
    options: &AuditOptions,
) -> Result<CollectionAudit> {
    let refused = |e| Error::from_server(e, "read", name);
    let mut cursor = sample::documents(db, name, options.sample, options.full_scan).await?;
    let mut arrays: BTreeMap<String, Lengths> = BTreeMap::new();
    let mut sizes = Lengths::default();
    let mut largest: Vec<(u64, String)> = Vec::new();
    let mut read = 0u64;
    let (mut over_2mib, mut over_8mib) = (0, 0);
    while let Some(raw) = cursor.try_next().await.map_err(refused)? {
        read += 1;
        let size = raw.as_bytes().len() as u64;
        sizes.add(size, read);
        over_2mib += u64::from(size > LARGE);
        over_8mib += u64::from(size > HUGE);
        keep_largest(&mut largest, size, &raw);
        measure(&raw, "", &mut arrays, read);
    }
    let arrays = arrays
        .into_iter()
        .map(|(path, lengths)| lengths.array(name, path, options.long))
        .collect();
    Ok(CollectionAudit {
        name: name.to_owned(),
        read,
        arrays,
        sizes: SizeAudit {
            max: sizes.max,
            p99: sizes.percentile(99),
            over_2mib,
            over_8mib,
            largest: largest.into_iter().map(|(size, id)| (id, size)).collect(),
        },
    })
}

/// Keeps the `_id`s of the [`LARGEST`] largest documents, largest first.
fn keep_largest(largest: &mut Vec<(u64, String)>, size: u64, raw: &RawDocument) {
    if largest.len() == LARGEST && largest.last().is_some_and(|(s, _)| *s >= size) {
        return;
    }
    let id = raw_id(raw);
    let at = largest.partition_point(|(s, _)| *s >= size);
    largest.insert(at, (size, id));
    largest.truncate(LARGEST);
}

/// Records the length of every array of `doc` (and of the arrays inside
/// its sub-documents and arrays of sub-documents) under its dotted path.
fn measure(doc: &RawDocument, prefix: &str, arrays: &mut BTreeMap<String, Lengths>, seed: u64) {
    for (key, value) in doc.iter().flatten() {
        let path = if prefix.is_empty() {
            key.as_str().to_owned()
        } else {
            format!("{prefix}.{}", key.as_str())
        };
        match value {
            RawBsonRef::Array(array) => {
                let mut length = 0;
                for item in array.into_iter().flatten() {
                    length += 1;
                    if let RawBsonRef::Document(sub) = item {
                        measure(sub, &path, arrays, seed);
                    }
                }
                arrays.entry(path).or_default().add(length, seed);
            }
            RawBsonRef::Document(sub) => measure(sub, &path, arrays, seed),
            _ => {}
        }
    }
}

/// The lengths of one path: the largest, how many, and a reservoir of at
/// most [`RESERVOIR`] of them (each kept with the same chance).
#[derive(Debug, Default)]
struct Lengths {
    max: u64,
    seen: u64,
    kept: Vec<u64>,
}

impl Lengths {
    fn add(&mut self, length: u64, seed: u64) {
        self.max = self.max.max(length);
        self.seen += 1;
        if self.kept.len() < RESERVOIR {
            self.kept.push(length);
            return;
        }
        // Algorithm R, with a hash of the counts for its random index.
        let mut x = self.seen ^ seed.rotate_left(32) ^ 0x9E37_79B9_7F4A_7C15;
        x ^= x >> 33;
        x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        x ^= x >> 33;
        let at = x % self.seen;
        if let Ok(at) = usize::try_from(at) {
            if at < RESERVOIR {
                self.kept[at] = length;
            }
        }
    }

    /// The `p`th percentile of the kept lengths, by nearest rank (the
    /// smallest length that at least `p`% of them do not exceed).
    fn percentile(&mut self, p: usize) -> u64 {
        self.kept.sort_unstable();
        let rank = (self.kept.len() * p).div_ceil(100);
        self.kept.get(rank.max(1) - 1).copied().unwrap_or(0)
    }

    fn array(mut self, collection: &str, path: String, long: u64) -> ArrayAudit {
        let unbounded = (self.max >= long).then(|| {
            format!(
                "an array of {} items in one document: it grows with what it holds, each \
                 update rewrites it, and at 16 MiB every write to the document fails (seed 000); \
                 bound it (`#[embed(max = N)]`, refused past N) or move its items to a \
                 collection of their own with a reference to the parent \
                 (`#[reference(index)]`)",
                self.max
            )
        });
        ArrayAudit {
            collection: collection.to_owned(),
            p50: self.percentile(50),
            p99: self.percentile(99),
            path,
            seen: self.seen,
            max: self.max,
            unbounded,
        }
    }
}

impl fmt::Display for ArrayAudit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}: {} arrays, max {}, p50 {}, p99 {}",
            self.collection, self.path, self.seen, self.max, self.p50, self.p99
        )?;
        if let Some(why) = &self.unbounded {
            write!(f, "; looks unbounded: {why}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Audit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.collections {
            writeln!(f, "{} ({} documents read)", c.name, c.read)?;
            let s = &c.sizes;
            write!(f, "  sizes: max {} bytes, p99 {} bytes", s.max, s.p99)?;
            if s.over_2mib > 0 {
                write!(
                    f,
                    ", {} over 2 MiB, {} over 8 MiB",
                    s.over_2mib, s.over_8mib
                )?;
                let ids: Vec<&str> = s.largest.iter().map(|(id, _)| id.as_str()).collect();
                write!(f, " (largest: _id {})", ids.join(", "))?;
            }
            writeln!(f)?;
            for a in &c.arrays {
                writeln!(f, "  {a}")?;
            }
        }
        Ok(())
    }
}
