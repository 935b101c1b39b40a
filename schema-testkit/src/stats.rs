//! The figures the benchmarks print: medians, and the spread of per-round
//! ratios between two sides timed in the same rounds.
//!
//! A benchmark that compares two sides times both in every round
//! (interleaved, so that the machine's load at that moment weighs on both)
//! and reports the ratio of each round's pair. [`Spread`] summarizes those
//! ratios by their median and their 10th and 90th percentiles: on a shared,
//! noisy machine the p10-p90 range says how far one reading can be trusted.

use std::fmt;
use std::time::Duration;

/// The value at quantile `q` (0.0 to 1.0) of `sorted` (ascending, not
/// empty), by nearest rank: the element at index `round(q * (len - 1))`.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let last = sorted.len().saturating_sub(1);
    let at = (q.clamp(0.0, 1.0) * last as f64).round() as usize;
    sorted[at.min(last)]
}

/// The median of `times` (the upper one of an even count); zero when empty.
pub fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

/// The median and the 10th and 90th percentiles of a series of values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The 10th percentile.
    pub p10: f64,
    /// The median.
    pub median: f64,
    /// The 90th percentile.
    pub p90: f64,
}

impl Spread {
    /// The spread of `values` (NaN ones left out); all NaN when none is left.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Spread {
        let mut sorted: Vec<f64> = values.into_iter().filter(|v| !v.is_nan()).collect();
        if sorted.is_empty() {
            return Spread {
                p10: f64::NAN,
                median: f64::NAN,
                p90: f64::NAN,
            };
        }
        sorted.sort_by(f64::total_cmp);
        Spread {
            p10: quantile(&sorted, 0.1),
            median: quantile(&sorted, 0.5),
            p90: quantile(&sorted, 0.9),
        }
    }

    /// The spread of the per-round ratios `a[i] / b[i]` of two sides timed
    /// in the same rounds (pairs past the shorter side are left out).
    pub fn of_ratios(a: &[Duration], b: &[Duration]) -> Spread {
        Spread::of(
            a.iter()
                .zip(b)
                .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64()),
        )
    }

    /// The p10-p90 range alone, e.g. `0.95-1.08`.
    pub fn range(&self) -> String {
        format!("{:.2}-{:.2}", self.p10, self.p90)
    }
}

/// The median with its p10-p90 range: `1.013 (p10-p90 0.95-1.08)`.
impl fmt::Display for Spread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} (p10-p90 {})", self.median, self.range())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_quantiles() {
        let s = Spread::of((1..=11).map(f64::from));
        assert_eq!((s.p10, s.median, s.p90), (2.0, 6.0, 10.0));
        let one = Spread::of([3.0]);
        assert_eq!((one.p10, one.median, one.p90), (3.0, 3.0, 3.0));
        assert!(Spread::of([]).median.is_nan());
    }

    #[test]
    fn ratios_pair_rounds() {
        let ms = Duration::from_millis;
        let s = Spread::of_ratios(&[ms(2), ms(3), ms(4)], &[ms(1), ms(3), ms(8)]);
        assert_eq!((s.p10, s.median, s.p90), (0.5, 1.0, 2.0));
        assert_eq!(median(&[ms(3), ms(1), ms(2)]), ms(2));
        assert_eq!(median(&[]), Duration::ZERO);
    }
}
