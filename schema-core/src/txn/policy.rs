//! How long a transaction is retried, and the pause before each new
//! attempt: the convenient-transactions specification's rules by default.

use std::time::Duration;

/// How long a transaction keeps retrying.
///
/// The default is the drivers' convenient-transactions specification
/// (`withTransaction`): no cap on the number of attempts, no new attempt once
/// 120 seconds have passed since the first, and before retry number `n` of
/// the whole transaction a pause of `jitter * min(5 ms * 1.5^n, 500 ms)`,
/// `jitter` drawn from [0, 1). A commit is retried after
/// `UnknownTransactionCommitResult` at once, without a pause and without
/// counting against [`max_attempts`](RetryPolicy::max_attempts).
///
/// ```
/// use std::time::Duration;
/// use schema_core::{Jitter, RetryPolicy};
///
/// // Give up sooner, and pause the longest each time (a test's fixed clock).
/// let policy = RetryPolicy {
///     deadline: Duration::from_secs(5),
///     jitter: Jitter::Fixed(1.0),
///     ..RetryPolicy::default()
/// };
/// assert_eq!(policy.backoff(1), Duration::from_micros(7_500));
/// assert_eq!(policy.backoff(20), Duration::from_millis(500));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// The most times the transaction starts (its first attempt included);
    /// `None`, the default, for no cap (the specification's rule: the
    /// deadline alone ends the retries). Commit retries are not counted.
    pub max_attempts: Option<u32>,
    /// No new attempt starts, and no commit is retried, after this much time
    /// since the first attempt (the specification's 120 s by default).
    pub deadline: Duration,
    /// `BACKOFF_INITIAL`: the pause before retry `n` is
    /// `jitter * min(initial_backoff * 1.5^n, max_backoff)`.
    pub initial_backoff: Duration,
    /// `BACKOFF_MAX`: the longest pause.
    pub max_backoff: Duration,
    /// Where the jitter comes from.
    pub jitter: Jitter,
}

/// The factor in [0, 1] each backoff is multiplied by.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[non_exhaustive]
pub enum Jitter {
    /// A new random number in [0, 1) for every pause (the default), so that
    /// writers that conflicted do not retry in step.
    #[default]
    Random,
    /// Always this factor (clamped to [0, 1]): `Fixed(0.0)` retries without
    /// a pause, `Fixed(1.0)` takes the longest pause each time. For tests
    /// that assert how long the retries took.
    Fixed(f64),
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: None,
            deadline: Duration::from_secs(120),
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(500),
            jitter: Jitter::Random,
        }
    }
}

impl RetryPolicy {
    /// A policy that starts the transaction at most `max_attempts` times,
    /// with the default deadline and backoff.
    pub fn attempts(max_attempts: u32) -> Self {
        RetryPolicy {
            max_attempts: Some(max_attempts),
            ..RetryPolicy::default()
        }
    }

    /// The pause before retry number `retry` of the whole transaction
    /// (1 for the second attempt): the specification's
    /// `jitter * min(BACKOFF_INITIAL * 1.5^retry, BACKOFF_MAX)`.
    pub fn backoff(&self, retry: u32) -> Duration {
        if retry == 0 {
            return Duration::ZERO;
        }
        let factor = 1.5f64.powi(retry.min(64) as i32);
        let exp = self.initial_backoff.as_secs_f64() * factor;
        let capped = Duration::from_secs_f64(exp.min(self.max_backoff.as_secs_f64()));
        capped.mul_f64(self.jitter.draw())
    }

    /// Whether the policy lets the transaction start again after
    /// `attempts` starts.
    pub(crate) fn allows_attempt(&self, attempts: u32) -> bool {
        self.max_attempts.is_none_or(|max| attempts < max.max(1))
    }
}

impl Jitter {
    fn draw(self) -> f64 {
        match self {
            Jitter::Random => random_unit(),
            Jitter::Fixed(f) if f.is_nan() => 0.0,
            Jitter::Fixed(f) => f.clamp(0.0, 1.0),
        }
    }
}

/// A number in [0, 1) that differs between calls and threads.
fn random_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(jitter: f64) -> RetryPolicy {
        RetryPolicy {
            jitter: Jitter::Fixed(jitter),
            ..RetryPolicy::default()
        }
    }

    #[test]
    fn backoff_follows_the_specification() {
        let p = fixed(1.0);
        assert_eq!(p.backoff(0), Duration::ZERO);
        assert_eq!(p.backoff(1), Duration::from_micros(7_500));
        assert_eq!(p.backoff(2), Duration::from_micros(11_250));
        for retry in 12..200 {
            assert_eq!(p.backoff(retry), Duration::from_millis(500));
        }
        // The prose test's figure: 13 retries with jitter 1 pause about 2.3 s.
        let total: Duration = (1..=13).map(|n| p.backoff(n)).sum();
        assert!((2.25..2.35).contains(&total.as_secs_f64()), "{total:?}");
        assert_eq!(fixed(0.0).backoff(5), Duration::ZERO);
    }

    #[test]
    fn random_jitter_is_in_the_unit_interval() {
        for _ in 0..100 {
            let j = random_unit();
            assert!((0.0..1.0).contains(&j));
        }
        let p = RetryPolicy::default();
        for retry in 0..40 {
            assert!(p.backoff(retry) <= p.max_backoff);
        }
    }

    #[test]
    fn attempts_are_uncapped_by_default() {
        assert!(RetryPolicy::default().allows_attempt(u32::MAX - 1));
        let three = RetryPolicy::attempts(3);
        assert!(three.allows_attempt(2));
        assert!(!three.allows_attempt(3));
        assert!(!RetryPolicy::attempts(0).allows_attempt(1));
    }
}
