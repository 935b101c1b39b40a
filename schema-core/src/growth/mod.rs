//! Growing data done right: the bucket pattern ([`bucket`]), where many
//! items of one parent share a bounded document. (Time-series collections,
//! where the server does the bucketing, are declared with the model:
//! `model::timeseries`.)

pub(crate) mod bucket;

pub use bucket::{Bucket, BucketCursor, BucketItems, BucketSpec, Buckets};
