//! MongoDB data models whose rules the compiler checks.
//!
//! Annotate a struct with `#[derive(Document)]` and say how each
//! relationship is stored: embedded and bounded (`#[embed(max = N)]`),
//! referenced from the child with an index (`#[reference(index)]`), or kept as
//! id arrays (`#[many_to_many(...)]`). An array or map with no bound does not
//! compile.
//!
//! # Where to start
//!
//! - The book (`book/` in the repository, built by `scripts/book.sh`), a
//!   chapter per topic in the order you meet them: getting started, models
//!   and what does not compile, embedding and bounds, references and paging,
//!   many-to-many and two-sided links, joins and copies, delete policies,
//!   queries and the index guard, typed filters and updates, transactions,
//!   buckets and time series, versions and migrations, setup and the schema
//!   command, sharding, errors and limits, tracing; then every rule by
//!   chapter. The README is its one-page summary.
//! - [`prelude`]: what a model file names (`use schema_core::prelude::*;`):
//!   the derives and their traits, the field constants, [`Filter`] and
//!   [`Update`], and the typed helpers.
//! - The main types: [`Document`](trait@Document) (what the derive
//!   implements), [`Repo`] (a model's collection: reads, writes, queries,
//!   pages, bounded pushes), [`Links`] and [`Through`] (many-to-many),
//!   [`Schema`] (setup: plan, sync, verify, repair, delete, migrate),
//!   [`transaction`] (several helpers in one transaction) and [`Error`]
//!   (each variant names what to act on).
//!
//! The public surface is what a user names: the crate root (models, [`Repo`],
//! the relation helpers, setup, errors) and the modules below that group a
//! topic. Internals (plan comparison, validator building blocks, the
//! transaction runner's state) are private; what the derive's generated code
//! needs lives in `__private`, which is not an API.
#![warn(missing_docs)]
#![warn(unreachable_pub)]

#[cfg(feature = "cli")]
pub mod cli;
pub mod error;
mod evolution;
mod exec;
pub mod growth;
pub mod model;
pub mod query;
pub mod relation;
pub mod repo;
pub mod setup;
pub mod txn;
mod typed;
pub mod write;

// The modules' former paths, kept while the public surface is flattened.
pub use evolution::versions;
pub use exec::action;
#[cfg(feature = "tracing")]
pub use exec::trace;
pub use model::index::collation;
pub use model::index::text as text_index;
pub use model::validator::depth as schema_depth;
pub use model::{bounded, delete_policy, shard, stamp, timeseries};
pub use query::explain;
pub use relation::verify;
pub use setup::{diagram, plan, schema};
pub use typed::{field, filter, path, update};
pub use write::embed;

/// The BSON crate this one is built on (`bson` 3): name its types
/// (`schema_core::bson::oid::ObjectId`, `schema_core::bson::doc!`, ...) through
/// this re-export and they are always the ones the derive's generated code and
/// this crate's API use, with no `bson` dependency of your own. The same crate
/// as [`mongodb::bson`].
pub use bson;
/// The MongoDB driver this crate is built on (`mongodb` 3, with its `bson-3`
/// feature): `schema_core::mongodb::Client` and the rest, with no `mongodb`
/// dependency of your own. See the README's "Install" section for its
/// features.
pub use mongodb;

pub use bounded::{Bounded, BoundedAt, BoundedCollection};
pub use embed::{Embed, EmbedArray};
pub use error::{Error, Result};
pub use explain::{explain_find, FindShape, PlanSummary};
pub use field::{EmbedField, Field, Keep, LinkField, RefField, TagField};
pub use filter::Filter;
pub use model::codec::MAX_DOCUMENT_SIZE;
pub use model::index::{Direction, IndexKind, IndexOrigin, IndexSpec};
pub use model::validator::BsonSchema;
pub use model::{CopySpec, Document, Embedded, OnDelete};
pub use plan::{Action, Plan, Unsharded, VersionCount, Violators};
pub use query::{DocStream, Find, Projection, Sort};
pub use relation::{
    Asymmetry, AsymmetryKind, Children, Cursor, Links, Page, Relation, RepairReport, Through,
    VerifyReport,
};
pub use repo::Repo;
pub use schema::{ModelInfo, Schema};
pub use schema_derive::{Document, Embedded, Projection};
pub use setup::{OnViolations, SyncOptions, SyncReport};
pub use txn::{transaction, RetryPolicy, Transaction};
pub use update::Update;

/// The most ids a `#[many_to_many(...)]` array may hold when its `max` is not
/// given: `#[many_to_many(one_sided, to = Course)]` is bounded at 1000 ids.
pub const DEFAULT_LINK_MAX: u32 = 1000;

/// What a model file needs: `use schema_core::prelude::*;`.
///
/// The derives and their traits ([`Document`], [`Embedded`], [`Projection`],
/// and [`BsonSchema`] for a type described by hand), the typed field constants a
/// model's `FIELDS` holds, the typed [`Filter`] and [`Update`] they build, and
/// the typed helpers a model is used through
/// ([`Repo`], [`Links`], [`Through`]). Setup ([`Schema`], [`SyncOptions`]),
/// errors ([`Error`]), paging results and transactions are imported by name
/// where they are used.
pub mod prelude {
    pub use crate::{
        BsonSchema, Document, EmbedField, Embedded, Field, Filter, LinkField, Links, Projection,
        RefField, Repo, Through, Update,
    };
}

/// Paths used by generated code. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::error::Error;
    pub use crate::evolution::versions::{
        assert_older, decode_older, step, unknown_version, versioned_schema, Versions,
    };
    pub use crate::growth::{Bucket, BucketSpec, Granularity, TimeSeriesSpec};
    pub use crate::model::bounded::{
        assert_bounded, assert_bounded_items, AsField, AsItem, Bounded, BoundedAt,
        BoundedCollection, Deeper, DepthBudget, Nesting, NoDepthLeft,
    };
    pub use crate::model::delete_policy::{Dependent, DEPENDENTS};
    pub use crate::model::id::{
        assert_link_ids, assert_reference_id, IdAccepted, IdProbe, IdRefused,
    };
    pub use crate::model::index::collation::CollationDef;
    pub use crate::model::index::text::TextDef;
    pub use crate::model::index::{Direction, IndexKind, IndexOrigin, IndexSpec};
    pub use crate::model::shard::ShardKey;
    pub use crate::model::stamp::{Stamp, TimestampField, VersionField, VersionType};
    pub use crate::model::tables::{
        object_of, ConstBson, IndexDef, PartialDef, PropertyDef, Required,
    };
    pub use crate::model::validator::depth::schema_of;
    pub use crate::model::validator::impls::{Described, SchemaProbe, Undescribed};
    pub use crate::model::validator::{
        any_of, enum_of, object_schema, one_of, tuple_of, with_max_items, with_tag, BsonSchema,
        Property,
    };
    pub use crate::model::{CopySpec, OnDelete, Replaceable, Tables, Updatable};
    pub use crate::model::{Document, Embedded};
    pub use crate::query::Projection;
    pub use crate::relation::copies::{assert_copy_many, assert_copy_one};
    pub use crate::relation::Relation;
    pub use crate::typed::field::{
        CustomSerializer, EmbedField, Field, Keep, LinkField, RefField, TagField,
    };
    pub use crate::typed::path::{
        descend, key_path, same_name, BucketItemsPath, FieldNames, KeyPath, Nested, NestedFields,
        One, Prefix, Root, Seg, Tagged, Variants,
    };
    pub use crate::DEFAULT_LINK_MAX;
    pub use bson;
    pub use core::marker::PhantomData;
    pub use core::{
        option::Option::{self, None, Some},
        result::Result,
        time::Duration,
    };
    pub use linkme;
    pub use serde;
    pub use std::{string::String, vec, vec::Vec};
}
