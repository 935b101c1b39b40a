//! The random points at which the kill tests kill: a cheap generator of
//! their own (xorshift, no dependency) and the run's seed, printed so that
//! a failing run can be replayed.

/// A cheap generator of random numbers, from a seed.
pub struct Draw(u64);

impl Draw {
    /// A generator started at `seed` (made odd, never zero).
    pub fn new(seed: u64) -> Draw {
        Draw(seed | 1)
    }

    /// The next number below `below`.
    pub fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

/// The run's seed: the environment variable `env` when set (to replay a
/// run), the clock otherwise; printed as `env=seed`.
pub fn seed(env: &str) -> u64 {
    let seed = std::env::var(env)
        .ok()
        .map(|s| s.parse().unwrap_or_else(|_| panic!("{env} is a number")))
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
        | 1;
    println!("{env}={seed}");
    seed
}
