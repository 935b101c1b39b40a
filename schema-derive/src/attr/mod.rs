//! Parsing of the derive's own attributes: `#[document(...)]` on the
//! container, `#[embed(...)]`, `#[reference(...)]` and `#[many_to_many(...)]`
//! on fields. Every mistake is reported to the [`Ctxt`](crate::ctxt::Ctxt),
//! spanned on the offending key or value, and parsing goes on so that all of
//! them show up in one build. Rules that look at more than one attribute
//! (two storage attributes on a field, `index` on a sub-document) are
//! `check`'s.
//!
//! - [`keywords`] holds one constant per keyword, and the keys each
//!   attribute takes;
//! - [`list`] walks a `key ...` list, and is the one place a repeated key is
//!   found;
//! - [`value`] reads one key's value (flag, integer, string, type, list);
//! - [`index`] is the index grammar (`index(...)`, key lists, partial
//!   filters), [`collation`] an index's `collation(...)`;
//! - [`container`] parses `#[document(...)]`, [`shard`] its `shard_key(...)`;
//! - [`field`] parses `#[embed(...)]`, `#[reference(...)]` and
//!   `#[many_to_many(...)]`.

mod bucket;
mod collation;
mod container;
mod copy;
mod encrypt;
mod field;
mod index;
mod keywords;
mod list;
mod shard;
mod timeseries;
mod value;

#[cfg(test)]
mod tests;

pub use bucket::{describe as describe_bucket_role, BucketAttr};
pub use collation::CollationAttr;
pub use container::{container, ContainerAttrs};
pub use copy::{copy, CopyAttr, CopyKind};
pub use encrypt::{encrypt, EncryptAttr, EncryptKind};
pub use field::{
    field, reject_field_attrs, EmbedAttr, FieldKind, Keep, OnDelete, RefAttr, StorageAttr,
};
pub use index::{Dir, IndexAttr, IndexKey, KeyName, PartialTest, Value};
pub use keywords::{misspelt, BUCKET, EMBED, ITEMS, MANY_TO_MANY, REFERENCE, TIMESTAMPS, VERSION};
pub use list::skip_rest;
pub use shard::ShardKeyAttr;
pub use timeseries::TimeSeriesAttr;
