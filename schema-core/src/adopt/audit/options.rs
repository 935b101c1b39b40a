//! What an audit reads: a sample of each collection or all of it, and the
//! length from which an array looks unbounded.

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
