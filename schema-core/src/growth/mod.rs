//! Growing data done right: the bucket pattern ([`bucket`]), where many
//! items of one parent share a bounded document, and time-series
//! collections ([`timeseries`](crate::model::timeseries)), where the server does
//! the bucketing.

pub(crate) mod bucket;

pub use crate::model::timeseries::{Granularity, TimeSeriesSpec};
pub use bucket::{Bucket, BucketCursor, BucketItems, BucketSpec, Buckets};
