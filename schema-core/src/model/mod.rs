//! The traits a model implements: [`Document`] for a root document stored in
//! its own collection, [`Embedded`] for a sub-document stored inside one.
//! `#[derive(Document)]` and `#[derive(Embedded)]` implement them. A
//! document's declared relationships are data too: [`Relation`].

pub(crate) mod bounded;
pub(crate) mod cache;
pub(crate) mod codec;
pub(crate) mod declared;
pub(crate) mod delete_policy;
pub(crate) mod encrypted;
pub(crate) mod id;
pub(crate) mod index;
pub(crate) mod limits;
pub(crate) mod schema_version;
pub(crate) mod shard;
pub(crate) mod stamp;
pub(crate) mod timeseries;
pub(crate) mod validator;

use std::any::TypeId;
use std::fmt::{self, Debug};

use bson::Document as BsonDocument;
use serde::{de::DeserializeOwned, Serialize};

use crate::error::Result;
use crate::model::bounded::Bounded;
use crate::model::declared::{object_of, IndexDef, PropertyDef};
use crate::model::encrypted::EncryptedSpec;
use crate::model::index::{Direction, IndexSpec};
use crate::model::validator::{validator, BsonSchema};

/// A model whose stored documents the helpers may update in part: every
/// `#[derive(Document)]` but a time series (whose measurements the server
/// updates only on their meta field, by multi-update) and a model with
/// earlier shapes (`migrate_from(..)`: an update written for the current
/// shape could reach a document stored at an earlier one). The typed update
/// builders and the update helpers need it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no typed update: it is a time series, or it names earlier shapes (`migrate_from`)",
    label = "an update of part of a `{Self}` document",
    note = "a time series: the server does not update a measurement; insert new measurements and delete old ones, and change the meta field of many with a raw `update_many(filter, doc! {{ \"$set\": {{ .. }} }})` filtered on it",
    note = "a model with earlier shapes: read it (old versions are upgraded on read) and `replace` it whole, or run `Repo::migrate` and drop `migrate_from` once no earlier version is left"
)]
pub trait Updatable {}

/// A model whose stored documents the helpers may replace whole
/// ([`Repo::replace`](crate::Repo::replace)): every `#[derive(Document)]`
/// but a time series. A versioned model (`migrate_from(..)`) is replaced
/// whole although it has no typed update: a replacement stores the current
/// shape, whatever version it replaces.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a time series: the server does not replace a measurement",
    label = "a replace of a time-series model",
    note = "insert new measurements and delete old ones"
)]
pub trait Replaceable {}

/// A root document: a Rust type stored one value per document in its own collection.
///
/// ```
/// use schema_core::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Document, Serialize, Deserialize)]
/// #[document(collection = "posts")]
/// struct Post {
///     #[serde(rename = "_id")]
///     id: String,
///     #[serde(rename = "authorId")]
///     #[reference(index)]
///     author_id: String,
///     #[embed(max = 10)]
///     tags: Vec<String>,
///     title: String,
/// }
///
/// assert_eq!(Post::COLLECTION, "posts");
/// assert_eq!(Post::FIELDS.author_id.name(), "authorId");
/// assert_eq!(Post::FIELDS.tags.max(), 10);
/// // A reference index ends with `_id`, so keyset pages stay on it through ties.
/// assert_eq!(Post::indexes()[0].name, "authorId_1__id_1");
/// ```
pub trait Document: Serialize + DeserializeOwned + Send + Sync + Unpin + 'static {
    /// The Rust type of the `_id` field.
    type Id: Serialize
        + DeserializeOwned
        + Clone
        + PartialEq
        + Debug
        + Send
        + Sync
        + Unpin
        + 'static;

    /// A struct with one typed constant per field (see [`Document::FIELDS`]).
    type Fields: 'static;

    /// The stored name of every field, as typed constants: `Post::FIELDS.author_id`
    /// is a [`RefField`](crate::RefField) whose `name()` is `"authorId"`.
    const FIELDS: Self::Fields;

    /// The collection name from `#[document(collection = "...")]`.
    const COLLECTION: &'static str;

    /// The Rust type name, for messages.
    const NAME: &'static str;

    /// The value of `_id`.
    fn id(&self) -> &Self::Id;

    /// What the derive declares, as constant tables, read by
    /// [`indexes`](Document::indexes), [`relations`](Document::relations) and
    /// [`json_schema`](Document::json_schema). Generated code; a hand-written
    /// impl overrides those methods instead.
    #[doc(hidden)]
    const TABLES: Tables = Tables::EMPTY;

    /// Every index the model declares: the references' first (in field
    /// order), then the many-to-many arrays', then the container's
    /// `index(...)` in the order written, then the one its shard key needs
    /// when none of those starts with the key's fields (see
    /// `shard`).
    fn indexes() -> Vec<IndexSpec> {
        let mut indexes =
            crate::model::shard::with_supporting_index(Self::TABLES.index_specs(), Self::SHARD_KEY);
        if Self::VERSIONS.is_some() {
            indexes.push(crate::model::schema_version::version_index());
        }
        indexes
    }

    /// The shard key, when the model declares one
    /// (`#[document(shard_key(...))]`, see `shard`).
    const SHARD_KEY: Option<crate::model::shard::ShardKey> = None;

    /// The fields the model declares encrypted (`#[encrypt(...)]`, the
    /// `encryption` feature) at every depth, each with its stored path
    /// (`ssn`, `profile.ssn`, `items.card`: an array's items by the same
    /// path), its data key's name (`"<collection>.<stored path>"`) and its
    /// algorithm.
    fn encrypted() -> Vec<EncryptedSpec> {
        let (own, nested) = (Self::TABLES.encrypted, Self::nested_encrypted());
        crate::model::encrypted::specs(Self::COLLECTION, own, nested)
    }

    /// The encrypted fields inside the model's sub-documents (generated
    /// code; see `BsonSchema::encrypted_paths`).
    #[doc(hidden)]
    fn nested_encrypted() -> Vec<crate::model::encrypted::EncryptedPath> {
        Vec::new()
    }

    /// The relationships the model declares (references, many-to-many arrays).
    fn relations() -> Vec<Relation> {
        Self::TABLES.relations.to_vec()
    }

    /// The model's object schema (`bsonType`, `required`, `properties`, `maxItems`).
    fn json_schema() -> BsonDocument {
        Self::TABLES.json_schema()
    }

    /// The stored name and integer type of the `#[document(version)]` field,
    /// when the model keeps one: `replace` and `update(id, ..).if_version(v)` check it,
    /// every update helper increments it (see `stamp`).
    const VERSION: Option<(&'static str, VersionType)> = None;

    /// The stored names of the `#[document(timestamps)]` fields (created,
    /// updated), when the model keeps them: inserts and upserts set both,
    /// every update and replace the second.
    const TIMESTAMPS: Option<(&'static str, &'static str)> = None;

    /// The time-series options, when the model is stored in a time-series
    /// collection (`#[document(timeseries(...))]`, see
    /// `timeseries`).
    const TIMESERIES: Option<crate::model::timeseries::TimeSeriesSpec> = None;

    /// The value of the version field, when the model keeps one.
    fn version(&self) -> Option<i64> {
        None
    }

    /// The copies its fields hold of fields of the documents they
    /// reference (`#[copy(from = ..., field = ...)]`, seed 004's extended
    /// reference; see `copies`).
    fn copies() -> Vec<CopySpec> {
        Vec::new()
    }

    /// The model's schema versions, when it names earlier shapes
    /// (`#[document(migrate_from(..))]`, see `versions`).
    const VERSIONS: Option<crate::model::schema_version::Versions> = None;

    /// Whether the collection keeps each changed document's previous
    /// version for change streams (`#[document(pre_images)]`): setup turns
    /// `changeStreamPreAndPostImages` on, and a stream can then carry the
    /// document as it was before an update or a delete
    /// ([`Watch::before_change`](crate::Watch::before_change)).
    const PRE_IMAGES: bool = false;

    /// A stored document at the earlier `version`, read as its own shape
    /// and upgraded to this one (generated for a versioned model).
    #[doc(hidden)]
    fn upgrade_stored(_version: u32, raw: &bson::RawDocument) -> crate::Result<Self> {
        Err(crate::error::Error::unknown_version(
            Self::NAME,
            Self::COLLECTION,
            raw,
            Self::VERSIONS,
        ))
    }

    /// The collection validator: `{"$jsonSchema": json_schema()}`.
    fn validator() -> BsonDocument {
        validator(Self::json_schema())
    }
}

/// A sub-document stored inside a [`Document`]: its own fields are checked to
/// be bounded, and it contributes an object schema to the parent's validator.
///
/// ```
/// use schema_core::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Embedded, Serialize, Deserialize)]
/// struct Profile {
///     #[serde(rename = "displayName")]
///     display_name: String,
///     bio: Option<String>,
/// }
///
/// let schema = <Profile as BsonSchema>::bson_schema();
/// assert_eq!(schema.get_str("bsonType").unwrap(), "object");
/// ```
pub trait Embedded: Bounded + BsonSchema {}

/// One relationship declared on a field. New relationship attributes may
/// add kinds, so a `match` needs a `_` arm.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Relation {
    /// `#[embed(max = N)]`: an array or map stored inside the document.
    Embed {
        /// Rust field name.
        field: &'static str,
        /// Stored field name.
        stored: &'static str,
        /// The most items it may hold.
        max: u32,
    },
    /// `#[reference(index)]`: the `_id` of another document, held by the child.
    Reference {
        /// Rust field name.
        field: &'static str,
        /// Stored field name.
        stored: &'static str,
        /// The target's collection, when the target type is named.
        target: Option<&'static str>,
        /// The sort key of the compound index, if any.
        sort: Option<(&'static str, Direction)>,
        /// What deleting the target does to the child, when declared
        /// (`on_delete = "..."`, see `delete_policy`).
        on_delete: Option<OnDelete>,
    },
    /// `#[many_to_many(...)]`: an array of `_id`s of another model.
    ManyToMany {
        /// Rust field name.
        field: &'static str,
        /// Stored field name.
        stored: &'static str,
        /// The target's collection.
        target: &'static str,
        /// How a helper stamps a target document it writes on the link's
        /// behalf (deleting a document pulls its id from the inverse arrays):
        /// the target's version and `updated_at`, as any helper write.
        stamp: Stamp,
        /// Stored name of the inverse array on the target (two-sided only).
        inverse: Option<&'static str>,
        /// The most ids the array may hold.
        max: u32,
    },
}

/// A field that holds a copy of a field of the documents it references,
/// kept in sync with them: `#[copy(from = skus, field = color)]` (see
/// `copies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopySpec {
    /// The copy's stored name in the holder.
    pub field: &'static str,
    /// The stored name of the holder's reference or link it copies through.
    pub from: &'static str,
    /// Whether `from` holds many ids (a `#[many_to_many]` link): the copy
    /// is then the distinct source values, in the order of the ids.
    pub many: bool,
    /// The source model's collection.
    pub source: &'static str,
    /// The copied field's stored name in the source.
    pub source_field: &'static str,
    /// Who refreshes the copy when its source changes (`follow = "..."`).
    pub follow: CopyFollow,
}

/// Who keeps a `#[copy]` in step with its source: `follow =
/// "transaction"` (the default) or `follow = "consumer"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CopyFollow {
    /// `Copies::update` rewrites every holder's copy in the transaction
    /// that changes the source: never stale, but the transaction grows
    /// with the number of holders.
    #[default]
    Transaction,
    /// `Copies::update` changes only the source; a named consumer
    /// (`CopyFollower`) refreshes the holders after the commit, in
    /// transactions of a bounded number of holders each: stale for a
    /// while, however many holders.
    Consumer,
}

impl CopyFollow {
    /// The value as written in the attribute.
    pub fn name(self) -> &'static str {
        match self {
            CopyFollow::Transaction => "transaction",
            CopyFollow::Consumer => "consumer",
        }
    }
}

/// What deleting a parent does to the children that reference it, declared
/// on the child's reference: `#[reference(index, to = User, on_delete =
/// "cascade")]` (see `delete_policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnDelete {
    /// `"restrict"`: the parent is not deleted while children remain
    /// ([`Error::Restricted`](crate::Error::Restricted), with their count).
    Restrict,
    /// `"cascade"`: the children are deleted with it (and what depends on
    /// them, by their own policies).
    Cascade,
    /// `"set_null"`: the children's `Option` reference is set to null.
    SetNull,
    /// `"unset"`: the children's `Option` reference is removed.
    Unset,
}

impl OnDelete {
    /// The value as written in the attribute.
    pub fn name(self) -> &'static str {
        match self {
            OnDelete::Restrict => "restrict",
            OnDelete::Cascade => "cascade",
            OnDelete::SetNull => "set_null",
            OnDelete::Unset => "unset",
        }
    }
}

impl Relation {
    /// The Rust name of the field that declares it.
    pub fn field(&self) -> &'static str {
        match self {
            Relation::Embed { field, .. }
            | Relation::Reference { field, .. }
            | Relation::ManyToMany { field, .. } => field,
        }
    }

    /// Whether writing it needs a multi-document transaction.
    pub fn needs_transaction(&self) -> bool {
        matches!(
            self,
            Relation::ManyToMany {
                inverse: Some(_),
                ..
            }
        )
    }
}

/// What the helpers add to an update of one model's documents: the `$inc`
/// of its `#[document(version)]` and the `$set` of its
/// `#[document(timestamps)]` `updated_at` (see `stamp`),
/// carried by a [`Relation`] for the documents of its target that helpers
/// write on its behalf. Made with [`Stamp::of`]; two are equal when they
/// stamp the same model.
#[derive(Clone, Copy)]
pub struct Stamp {
    model: fn() -> TypeId,
    name: &'static str,
    update: fn(&mut BsonDocument, bool) -> Result<()>,
}

impl Stamp {
    /// Built by [`Stamp::of`], next to the rule it applies.
    pub(crate) const fn new<M: Document>(
        update: fn(&mut BsonDocument, bool) -> Result<()>,
    ) -> Self {
        Stamp {
            model: TypeId::of::<M>,
            name: M::NAME,
            update,
        }
    }

    /// A stamp that adds nothing (for unit tests).
    #[cfg(test)]
    pub(crate) fn none() -> Self {
        Stamp {
            model: TypeId::of::<()>,
            name: "()",
            update: |_, _| Ok(()),
        }
    }

    /// The Rust name of the model it stamps.
    pub fn model(&self) -> &'static str {
        self.name
    }

    /// Adds the model's version and timestamps to `update` (`upsert`: it
    /// may insert).
    pub(crate) fn apply(&self, update: &mut BsonDocument, upsert: bool) -> Result<()> {
        (self.update)(update, upsert)
    }

    /// The function [`apply`](Self::apply) calls (for a link's side).
    pub(crate) fn update_fn(&self) -> fn(&mut BsonDocument, bool) -> Result<()> {
        self.update
    }
}

impl PartialEq for Stamp {
    fn eq(&self, other: &Self) -> bool {
        (self.model)() == (other.model)()
    }
}

impl Eq for Stamp {}

impl Debug for Stamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Stamp").field(&self.name).finish()
    }
}

/// The integer type of a `#[document(version)]` field (see
/// `stamp`): its increment is stored as the same
/// BSON type, so the validator's `bsonType` keeps holding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionType {
    /// `i32`: BSON `int`.
    I32,
    /// `i64`: BSON `long`.
    I64,
}

/// Everything a model declares that setup and the helpers read as data.
#[derive(Debug, Clone, Copy)]
pub struct Tables {
    /// The indexes, in the order `Document::indexes` lists them.
    pub indexes: &'static [IndexDef],
    /// The relationships, in field order.
    pub relations: &'static [Relation],
    /// The validator's properties, in stored order.
    pub properties: &'static [PropertyDef],
    /// `additionalProperties: false` (no `#[document(open)]`).
    pub closed: bool,
    /// The encrypted fields (`#[encrypt(...)]`), in field order.
    pub encrypted: &'static [crate::model::encrypted::EncryptedDef],
}

impl Tables {
    /// No index, no relationship, an open object with no property.
    pub const EMPTY: Tables = Tables {
        indexes: &[],
        relations: &[],
        properties: &[],
        closed: false,
        encrypted: &[],
    };

    /// The index specifications.
    pub fn index_specs(&self) -> Vec<IndexSpec> {
        self.indexes.iter().map(IndexDef::spec).collect()
    }

    /// The object schema (`bsonType`, `required`, `properties`, `maxItems`).
    pub fn json_schema(&self) -> BsonDocument {
        object_of(self.properties, self.closed)
    }
}
