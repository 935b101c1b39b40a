//! The lengths of each array path: the largest, how many, a bounded
//! reservoir of (length, creation time) pairs for the percentiles and for
//! whether the arrays grow with their documents' age (a Spearman rank
//! correlation), and the verdict: bounded, or looks unbounded and why.

use std::fmt;

use serde::Serialize;

/// How many lengths of one array path are kept for its percentiles and its
/// growth with age.
pub const RESERVOIR: usize = 10_000;

/// An array's lengths grow with its documents' age when the rank
/// correlation between age and length is at least this (older documents
/// hold more)...
pub const GROWING_RHO: f64 = 0.5;

/// ...over at least this many arrays whose document's age is known.
pub const GROWING_MIN: u64 = 30;

/// The lengths of one array path (`messages`, `items.tags` for the arrays
/// inside an array of sub-documents).
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// How the lengths follow the documents' age, when the age of at least
    /// [`GROWING_MIN`] of them is known (an ObjectId `_id`'s time, or else a
    /// top-level date field) and their lengths are not all equal.
    pub growth: Option<Growth>,
    /// Why it looks unbounded (long, or growing with age), and the two ways
    /// out; `None` when it does not.
    pub unbounded: Option<String>,
}

/// How an array's lengths follow the age of the documents holding it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Growth {
    /// Spearman's rank correlation between a document's age and the
    /// array's length, from -1 to 1: positive when older documents hold
    /// more (flagged from [`GROWING_RHO`]).
    pub rho: f64,
    /// How many (age, length) pairs it was computed over (at most
    /// [`RESERVOIR`], a uniform sample of them).
    pub pairs: u64,
    /// Where the age was read: `_id` (an ObjectId's time) or a date field.
    pub age_from: String,
}

impl Growth {
    /// Whether older documents clearly hold more: `rho` of at least
    /// [`GROWING_RHO`] over at least [`GROWING_MIN`] pairs.
    pub fn is_growing(&self) -> bool {
        self.rho >= GROWING_RHO && self.pairs >= GROWING_MIN
    }
}

/// The lengths of one path: the largest, how many, and a reservoir of at
/// most [`RESERVOIR`] of them (each kept with the same chance), each with
/// its document's creation time (milliseconds) when known.
#[derive(Debug, Default)]
pub(super) struct Lengths {
    max: u64,
    seen: u64,
    kept: Vec<(u64, Option<i64>)>,
}

/// A random index below `seen`, from a hash of the counts (Algorithm R).
pub(super) fn reservoir_slot(seen: u64, seed: u64) -> Option<usize> {
    let mut x = seen ^ seed.rotate_left(32) ^ 0x9E37_79B9_7F4A_7C15;
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    usize::try_from(x % seen.max(1))
        .ok()
        .filter(|at| *at < RESERVOIR)
}

impl Lengths {
    pub(super) fn add(&mut self, length: u64, created: Option<i64>, seed: u64) {
        self.max = self.max.max(length);
        self.seen += 1;
        if self.kept.len() < RESERVOIR {
            self.kept.push((length, created));
        } else if let Some(at) = reservoir_slot(self.seen, seed) {
            self.kept[at] = (length, created);
        }
    }

    pub(super) fn max(&self) -> u64 {
        self.max
    }

    /// The `p`th percentile of the kept lengths, by nearest rank (the
    /// smallest length that at least `p`% of them do not exceed); sorts
    /// the reservoir in place.
    pub(super) fn percentile(&mut self, p: usize) -> u64 {
        self.kept.sort_unstable_by_key(|(length, _)| *length);
        let rank = (self.kept.len() * p).div_ceil(100);
        self.kept.get(rank.max(1) - 1).map_or(0, |(l, _)| *l)
    }

    /// Spearman's rho between age (older first) and length over the kept
    /// pairs whose age is known; `None` under [`GROWING_MIN`] pairs or when
    /// either side is all ties.
    fn growth(&self, age_from: Option<&str>) -> Option<Growth> {
        let pairs: Vec<(i64, u64)> = self
            .kept
            .iter()
            .filter_map(|(length, created)| Some((-(*created)?, *length)))
            .collect();
        if (pairs.len() as u64) < GROWING_MIN {
            return None;
        }
        let ages = ranks(pairs.iter().map(|(age, _)| *age as f64));
        let lengths = ranks(pairs.iter().map(|(_, length)| *length as f64));
        Some(Growth {
            rho: pearson(&ages, &lengths)?,
            pairs: pairs.len() as u64,
            age_from: age_from.unwrap_or("_id").to_owned(),
        })
    }

    pub(super) fn array(
        mut self,
        collection: &str,
        path: String,
        long: u64,
        age_from: Option<&str>,
    ) -> ArrayAudit {
        let growth = self.growth(age_from);
        let growing = growth.as_ref().filter(|g| g.is_growing());
        let unbounded = if self.max >= long {
            Some(format!("an array of {} items in one document", self.max))
        } else {
            growing.map(|g| {
                format!(
                    "its length grows with the document's age (Spearman's rho {:.2} over {} \
                     documents, age from {}): older documents hold more, so it has no bound \
                     but time",
                    g.rho, g.pairs, g.age_from
                )
            })
        }
        .map(|what| {
            format!(
                "{what}: it grows with what it holds, each update rewrites it, and at 16 MiB \
                 every write to the document fails (seed 000); bound it (`#[embed(max = N)]`, \
                 refused past N) or move its items to a collection of their own with a \
                 reference to the parent (`#[reference(index)]`)"
            )
        });
        ArrayAudit {
            collection: collection.to_owned(),
            p50: self.percentile(50),
            p99: self.percentile(99),
            path,
            seen: self.seen,
            max: self.max,
            growth,
            unbounded,
        }
    }
}

/// The ranks of `values` (1-based, ties given their average rank).
fn ranks(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let values: Vec<f64> = values.collect();
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|a, b| values[*a].total_cmp(&values[*b]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let average = (i + j) as f64 / 2.0 + 1.0;
        for at in &order[i..=j] {
            ranks[*at] = average;
        }
        i = j + 1;
    }
    ranks
}

/// Pearson's correlation of `x` and `y` (Spearman's rho on ranks); `None`
/// when either does not vary.
fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rho_is_one_when_older_documents_hold_more_and_ties_share_a_rank() {
        let mut lengths = Lengths::default();
        for i in 0..40i64 {
            // Created later, shorter.
            lengths.add((100 - i) as u64, Some(i * 1000), 1);
        }
        let growth = lengths.growth(None).unwrap();
        assert!((growth.rho - 1.0).abs() < 1e-9, "{growth:?}");
        assert!(growth.is_growing());
        assert_eq!(
            ranks([3.0, 1.0, 3.0, 2.0].into_iter()),
            [3.5, 1.0, 3.5, 2.0]
        );
        let mut flat = Lengths::default();
        for i in 0..40i64 {
            flat.add(3, Some(i), 1);
        }
        assert_eq!(flat.growth(None), None);
    }
}
