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
//!   command, sharding, encrypted fields, errors and limits, tracing; then
//!   every rule by chapter. The README is its one-page summary.
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

mod adopt;
pub mod aggregate;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "encryption")]
pub mod crypt;
#[cfg(not(feature = "encryption"))]
#[path = "crypt/off.rs"]
mod crypt;
mod error;
mod evolution;
mod exec;
mod growth;
mod model;
mod query;
mod relation;
mod repo;
mod setup;
mod txn;
mod typed;
mod watch;
mod write;

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

// Models: the derives, their traits and what they declare.
pub use model::bounded::{Bounded, BoundedAt, BoundedCollection, MAX_NESTING};
pub use model::codec::MAX_DOCUMENT_SIZE;
pub use model::delete_policy::RefPolicy;
pub use model::encrypted::{Algorithm, EncryptedDef, EncryptedSpec};
pub use model::index::collation::IndexCollation;
pub use model::index::text::TextOptions;
pub use model::index::{Direction, IndexKind, IndexOrigin, IndexSpec};
pub use model::schema_version::{Versions, VERSION_FIELD};
pub use model::shard::ShardKey;
pub use model::stamp::{Stamp, VersionType};
pub use model::timeseries::{Granularity, TimeSeriesSpec};
pub use model::validator::depth::{schema_of, MAX_SCHEMA_DEPTH};
pub use model::validator::BsonSchema;
pub use model::{CopyFollow, CopySpec, Document, Embedded, OnDelete, Relation};
pub use schema_derive::{Document, Embedded, Projection, Row};

// Typed fields, filters and updates.
pub use typed::field::{
    Compare, Deterministic, EmbedField, EncryptedField, Field, Keep, LinkField, Random, RefField,
    Tag, TagField, Typed,
};
pub use typed::filter::Filter;
pub use typed::update::{DateField, Number, NumericField, Optional, Update};

// A model's collection: reads, writes, pages, bounded pushes, projections.
pub use aggregate::{Aggregate, Row, Rows};
pub use exec::action::Action;
pub use query::explain::{explain_find, FindShape, PlanSummary};
pub use query::{
    check, targeting, Count, Cursor, DocStream, Find, FindOne, Page, Projection, Sort, Targeting,
    DEFAULT_BATCH_SIZE,
};
pub use repo::Repo;
pub use write::embed::{Embed, EmbedArray};
pub use write::{
    DeleteOptions, FindOneAndUpdateOptions, InsertManyOptions, ReturnDocument, UpdateByIdOptions,
    UpdateOptions, UpdateResult,
};

// Relations: children, joins, many-to-many links, copies, deletes, checks.
pub use relation::copies::{Copies, CopyReport};
pub use relation::copy_types::CopyOne;
pub use relation::delete::{Delete, Deleted, DEFAULT_DELETE_BATCH};
pub use relation::join::{Family, JoinPlan, WithParent, WithParents};
pub use relation::reference::DEFAULT_PAGE_SIZE;
pub use relation::verify::{
    ClearCheck, CopyCheck, LinkChange, LinkCheck, LinkRepair, RemovedBecause, RepairOptions,
    SchemaCheck, SchemaRepair,
};
pub use relation::{
    Asymmetry, AsymmetryKind, Children, Links, OverMax, RepairReport, Through, VerifyReport,
};

// Reacting to changes: typed change streams.
/// The boxed `Send` future a [`Handler`], a [`Listener`] and a
/// [`TxnBody`] return (`futures_util`'s).
pub use futures_util::future::BoxFuture;
pub use watch::{
    Change, ChangeStream, Consumer, CopyFollower, Event, FollowedBatch, Gap, Handler, Lease,
    Listener, OnLost, Ran, Recovery, Stopper, Watch, CONSUMERS, DEFAULT_FOLLOW_BATCH,
};

// Adopting a database: its audit.
pub use adopt::audit::{
    audit, audit_with, ArrayAudit, Audit, AuditOptions, AuditProgress, AuditStage, CollectionAudit,
    DeclaredAudit, EncryptedAudit, Failing, Growth, OneSided, PolymorphicAudit, ReferenceAudit,
    SizeAudit, Variant, GROWING_MIN, GROWING_RHO, HUGE, LARGE, LINKS_KEPT, REFERENCE_FOUND,
    REFERENCE_SAMPLE, RESERVOIR, TAG_VALUES,
};

// Adopting a database: moving a stuck array out into a collection of its own.
pub use adopt::move_out::{MoveOptions, MoveOut, MoveProgress, MoveReads};

// Adopting a database: models generated from the data.
pub use adopt::pull::{pull, PullOptions, Pulled, PulledModel};

// Growing data: buckets.
pub use growth::{Bucket, BucketCursor, BucketItems, BucketSpec, Buckets};

// Models that change.
pub use evolution::versions::{MigrateOptions, Progress, Upgrade};

// Setup.
pub use setup::plan::{Plan, ServerIndex};
pub use setup::schema::{ModelInfo, Schema};
pub use setup::step::{Step, Unsharded, VersionCount, Violators};
pub use setup::{OnViolations, SyncOptions, SyncReport};

// Transactions.
pub use txn::{
    commit_write_concern, helper_options, transaction, Jitter, RetryPolicy, Transaction, TxnBody,
};

// Errors.
pub use error::{
    code, label, ChangeError, DriverError, Error, FailedInsert, InsertManyFailure, LostBecause,
    QueryFields, Result,
};

/// Typed filters beyond a field's own comparisons: [`and`](filter::and),
/// [`or`](filter::or), [`not`](filter::not), and the tree a [`Filter`] is read
/// back as ([`Node`](filter::Node)).
pub mod filter {
    pub use crate::typed::filter::{and, not, or, Node, Op, Predicate, PredicateKind};
}

/// The types of typed paths: what a field constant's path type is made of
/// (`Root`, `Prefix`, `Seg`, `Nested`, ...), named in the signatures of
/// generated field constants.
pub mod path {
    pub use crate::typed::path::{
        Below, BucketItemsPath, Descend, FieldNames, KeyPath, Many, Nested, NestedFields, One,
        OutsideArrays, OutsideBuckets, OutsideVariants, Prefix, Root, Seg, Tagged, Variants,
        MAX_PATH,
    };
}

/// The traits the compile-time rules are made of. They are not called by
/// hand: each names a rule in the messages the compiler prints when a model
/// breaks it (`the trait ArrayWithoutMax<Vec<String>> is not implemented for
/// AsField` for an array field without a bound), and the message's first
/// line says what to write instead.
pub mod rules {
    pub use crate::model::bounded::{
        ArrayWithoutMax, AsField, AsItem, Deeper, FreeForm, MapWithoutMax, NestedArray, NestedMap,
        Nesting, NoDepthLeft,
    };
    pub use crate::model::encrypted::{DeterministicValue, EncryptionFeature};
    pub use crate::model::id::{HoldsTargetId, IsTargetId, SingleId, SingleShardValue};
    pub use crate::model::stamp::{TimestampField, VersionField};
    pub use crate::model::{Replaceable, Updatable};
    pub use crate::typed::field::{CustomSerializer, Elem, Equality, InPlace, Ordered};
}

/// Counting the commands a client sends, with the `tracing` feature.
#[cfg(feature = "tracing")]
pub mod trace {
    pub use crate::exec::trace::{count_commands, on_command};
}

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
        RefField, Repo, Row, Rows, Through, Update,
    };
}

/// Paths used by generated code. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::aggregate::{check as agg, Projected, Row, RowSource, RowSpec, Rows};
    pub use crate::error::Error;
    pub use crate::evolution::versions::{
        assert_older, decode_older, step, unknown_version, versioned_schema, Versions,
    };
    pub use crate::growth::{Bucket, BucketSpec};
    pub use crate::model::bounded::{
        assert_bounded, assert_bounded_items, AsField, AsItem, Bounded, BoundedAt,
        BoundedCollection, Deeper, DepthBudget, Nesting, NoDepthLeft,
    };
    pub use crate::model::declared::{
        object_of, ConstBson, IndexDef, PartialDef, PropertyDef, Required,
    };
    pub use crate::model::delete_policy::{Dependent, DEPENDENTS};
    pub use crate::model::encrypted::{
        assert_deterministic, assert_feature, nest, Algorithm, EncryptedDef, EncryptedPath,
        FeatureProbe,
    };
    pub use crate::model::id::{
        assert_link_ids, assert_reference_id, IdAccepted, IdProbe, IdRefused,
    };
    pub use crate::model::index::collation::CollationDef;
    pub use crate::model::index::text::TextDef;
    pub use crate::model::index::{Direction, IndexKind, IndexOrigin, IndexSpec};
    pub use crate::model::shard::ShardKey;
    pub use crate::model::stamp::{Stamp, TimestampField, VersionField, VersionType};
    pub use crate::model::timeseries::{Granularity, TimeSeriesSpec};
    pub use crate::model::validator::depth::schema_of;
    pub use crate::model::validator::impls::{Described, SchemaProbe, Undescribed};
    pub use crate::model::validator::{
        any_of, enum_of, object_schema, one_of, tuple_of, with_max_items, with_tag, BsonSchema,
        Property,
    };
    pub use crate::model::{CopyFollow, CopySpec, OnDelete, Replaceable, Tables, Updatable};
    pub use crate::model::{Document, Embedded};
    pub use crate::query::projection::assert_view_field;
    pub use crate::query::Opener;
    pub use crate::query::Projection;
    pub use crate::relation::copy_types::{assert_copy_many, assert_copy_one, source_encrypted};
    pub use crate::relation::Relation;
    pub use crate::typed::field::{
        CustomSerializer, EmbedField, Field, Keep, LinkField, RefField, TagField,
    };
    pub use crate::typed::field::{Deterministic, EncryptedField, Random};
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
