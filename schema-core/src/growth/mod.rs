//! Growing data done right: the bucket pattern ([`bucket`]), where many
//! items of one parent share a bounded document, and time-series
//! collections ([`timeseries`]), where the server does the bucketing.

pub mod bucket;
pub mod timeseries;

pub use bucket::{Bucket, BucketCursor, BucketItems, BucketSpec, Buckets, ItemPage};
pub use timeseries::{Granularity, TimeSeriesSpec};
