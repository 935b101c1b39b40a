//! Growing data done right: the bucket pattern ([`bucket`]), where many
//! items of one parent share a bounded document.

pub mod bucket;

pub use bucket::{Bucket, BucketCursor, BucketItems, BucketSpec, Buckets, ItemPage};
