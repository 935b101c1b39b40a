//! The steps of a plan ([`Step`]): what setup would change on the server,
//! each with how it is told and the command that applies it.

use std::fmt;

use bson::{doc, Bson, Document};

use crate::error::Wording;
use crate::model::index::server::ServerIndex;
use crate::model::index::IndexSpec;

/// One step of a plan. More kinds of step may come (a new kind of drift), so
/// a `match` needs a `_` arm.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Step {
    /// The collection is missing: create it with its validator.
    CreateCollection {
        /// Collection name.
        collection: String,
        /// Its `$jsonSchema` validator.
        validator: Document,
    },
    /// The validator differs (or is missing): `collMod` it.
    UpdateValidator {
        /// Collection name.
        collection: String,
        /// What the server has.
        current: Option<Document>,
        /// What the model declares.
        wanted: Document,
        /// The existing documents that fail `wanted`: setup refuses the
        /// change while there are any, unless told how
        /// ([`OnViolations`](crate::OnViolations)).
        violators: Violators,
    },
    /// The validator matches but the server checks it at a level other than
    /// `strict` (`moderate` exempts documents that already fail it, `off`
    /// checks nothing), typically after
    /// [`OnViolations::ValidateModerate`](crate::OnViolations::ValidateModerate).
    /// Setup restores `strict` once no document fails the validator, and
    /// leaves the level alone (reported) until then, unless told to apply.
    ValidationLevel {
        /// Collection name.
        collection: String,
        /// The server's level (`moderate` or `off`).
        current: String,
        /// The existing documents that fail the validator.
        violators: Violators,
    },
    /// The collection of a time-series model is missing: create it as a
    /// time series with the model's options (and no validator: the server
    /// takes none on a time-series collection).
    CreateTimeSeries {
        /// Collection name.
        collection: String,
        /// The model's options.
        timeseries: crate::model::timeseries::TimeSeriesSpec,
    },
    /// The collection exists, but not as the model declares it: a plain
    /// collection where the model is a time series (or the reverse), or a
    /// time series with other options. Reported and left alone: a
    /// collection cannot become a time series in place.
    TimeSeriesDiffers {
        /// Collection name.
        collection: String,
        /// What the server has, in words.
        server: String,
        /// What the model declares, in words.
        wanted: String,
    },
    /// The model keeps pre-images (`#[document(pre_images)]`) and its
    /// collection does not record them: `collMod` it with
    /// `changeStreamPreAndPostImages: {enabled: true}` (after creating it,
    /// when it is missing).
    PreImages {
        /// Collection name.
        collection: String,
    },
    /// A declared index is missing: create it.
    CreateIndex {
        /// Collection name.
        collection: String,
        /// The index.
        spec: IndexSpec,
    },
    /// An index the model declares hidden (or visible) is the other way on
    /// the server: `sync` hides or unhides it in place (`collMod`), keeping
    /// it built.
    IndexVisibility {
        /// Collection name.
        collection: String,
        /// The index's name.
        name: String,
        /// Whether the model declares it hidden.
        hidden: bool,
    },
    /// An index on the server has the declared name (or the declared keys)
    /// but another definition. Setup refuses unless asked to replace it.
    ConflictingIndex {
        /// Collection name.
        collection: String,
        /// What the server has (boxed: the two indexes are most of an
        /// action's size).
        server: Box<ServerIndex>,
        /// What the model declares.
        wanted: Box<IndexSpec>,
    },
    /// An index on the server that no model declares. Reported; dropped only
    /// when asked.
    ExtraIndex {
        /// Collection name.
        collection: String,
        /// The index.
        index: ServerIndex,
    },
    /// On a mongos, a collection whose model declares a shard key is not
    /// sharded: shard it (after its indexes are created), with the
    /// commands of [`sharding_commands`](Step::sharding_commands).
    ShardCollection {
        /// Collection name.
        collection: String,
        /// `database.collection`.
        namespace: String,
        /// The shard key document (`{roomId: 1, n: 1}`, `{_id: "hashed"}`).
        key: Document,
        /// The database to `enableSharding` first (servers before 6.0).
        enable_sharding: Option<String>,
    },
    /// A data key an encrypted field needs (`#[encrypt(...)]`) is missing
    /// from the key vault: create it (wrapped by the schema's master key,
    /// see `Schema::with_encryption`), after making sure of the vault's
    /// unique index on `keyAltNames`.
    CreateDataKey {
        /// The key vault's namespace (`encryption.__keyVault`).
        collection: String,
        /// The key's alt name (`"customers.ssn"`).
        key: String,
        /// The model and the field's stored name that need it.
        field: String,
    },
    /// The collection is sharded on another key than the model's. Reported
    /// and left alone: changing a shard key moves every document, so it is
    /// never run unasked.
    ShardKeyDiffers {
        /// Collection name.
        collection: String,
        /// `database.collection`.
        namespace: String,
        /// The key `config.collections` lists.
        server: Document,
        /// The model's key.
        wanted: Document,
        /// The command that would change it, to run by hand
        /// (`refineCollectionShardKey` when the model only adds fields
        /// after the server's key, `reshardCollection` otherwise); `None` on
        /// a server before 5.0, which can do neither.
        suggested: Option<Document>,
    },
}

impl Step {
    /// The collection it concerns.
    pub fn collection(&self) -> &str {
        match self {
            Step::CreateCollection { collection, .. }
            | Step::CreateTimeSeries { collection, .. }
            | Step::TimeSeriesDiffers { collection, .. }
            | Step::UpdateValidator { collection, .. }
            | Step::ValidationLevel { collection, .. }
            | Step::PreImages { collection }
            | Step::CreateIndex { collection, .. }
            | Step::IndexVisibility { collection, .. }
            | Step::ConflictingIndex { collection, .. }
            | Step::ExtraIndex { collection, .. }
            | Step::ShardCollection { collection, .. }
            | Step::ShardKeyDiffers { collection, .. }
            | Step::CreateDataKey { collection, .. } => collection,
        }
    }

    /// The commands `sync` sends to the admin database for this step, in
    /// order, as documents: for [`Step::ShardCollection`],
    /// `{enableSharding: db}` (servers before 6.0) then `{shardCollection:
    /// "db.coll", key: {...}}`; nothing for the other steps.
    pub fn sharding_commands(&self) -> Vec<Document> {
        match self {
            Step::ShardCollection {
                namespace,
                key,
                enable_sharding,
                ..
            } => shard_commands(namespace, key, enable_sharding.as_deref()),
            _ => Vec::new(),
        }
    }

    /// Whether it is drift found on the server (rather than a missing piece).
    pub fn is_drift(&self) -> bool {
        matches!(
            self,
            Step::ConflictingIndex { .. }
                | Step::ExtraIndex { .. }
                | Step::ValidationLevel { .. }
                | Step::TimeSeriesDiffers { .. }
                | Step::ShardKeyDiffers { .. }
        )
    }

    pub(crate) fn verb(&self) -> &'static str {
        match self {
            Step::CreateCollection { .. } => "create collection",
            Step::CreateTimeSeries { .. } => "create time series",
            Step::TimeSeriesDiffers { .. } => "drift: collection kind",
            Step::UpdateValidator { .. } => "update validator",
            Step::ValidationLevel { .. } => "drift: validation level",
            Step::PreImages { .. } => "keep pre-images",
            Step::CreateIndex { .. } => "create index",
            Step::IndexVisibility { hidden: true, .. } => "hide index",
            Step::IndexVisibility { hidden: false, .. } => "unhide index",
            Step::ConflictingIndex { .. } => "drift: index differs",
            Step::ExtraIndex { .. } => "drift: extra index",
            Step::ShardCollection { .. } => "shard collection",
            Step::ShardKeyDiffers { .. } => "drift: shard key",
            Step::CreateDataKey { .. } => "create data key",
        }
    }

    /// What `sync` did for this step, in the command's words: for a
    /// validator that existing documents fail, the level it was applied at
    /// (`moderate`, or `strict` anyway) instead of the plan's advice.
    #[cfg(feature = "cli")]
    pub(crate) fn applied_detail(&self, moderate: bool) -> String {
        match self {
            Step::UpdateValidator {
                current,
                wanted,
                violators,
                ..
            } if !violators.is_empty() => {
                let from = if current.is_some() { "changed" } else { "none" };
                let level = if moderate {
                    "\"moderate\": they stay writable, unchecked, and a later sync restores \
                     \"strict\" once none fails"
                } else {
                    "\"strict\" anyway: every write to them is refused until they are fixed"
                };
                format!(
                    "{from} -> $jsonSchema ({} properties); {violators}: applied at \
                     validationLevel {level}",
                    property_count(wanted)
                )
            }
            _ => self.detail_in(Wording::Command),
        }
    }

    /// What the step does, in a plan's third column, its advice in
    /// `wording`'s terms (the option `on_violations`, or the command's
    /// `--on-violations`).
    pub(crate) fn detail_in(&self, wording: Wording) -> String {
        match self {
            Step::CreateCollection { validator, .. } => {
                format!("with validator ({} properties)", property_count(validator))
            }
            Step::CreateTimeSeries { timeseries, .. } => format!(
                "{}, no validator (a time-series collection takes none)",
                timeseries.describe()
            ),
            Step::TimeSeriesDiffers { server, wanted, .. } => format!(
                "server: {server} | model: {wanted}; left alone (nothing is converted in place): \
                 create the collection under a new name as the model declares it, copy the \
                 documents into it (e.g. an aggregation ending with `$out` to it), then drop or \
                 rename the old one and sync again"
            ),
            Step::UpdateValidator {
                current,
                wanted,
                violators,
                ..
            } => {
                let from = if current.is_some() { "changed" } else { "none" };
                let mut detail = format!(
                    "{from} -> $jsonSchema ({} properties)",
                    property_count(wanted)
                );
                if !violators.is_empty() {
                    let how = match wording {
                        Wording::Library => "`on_violations`",
                        Wording::Command => "`--on-violations`",
                    };
                    detail.push_str(&format!(
                        "; {violators}: refused unless the data is fixed or {how} says how"
                    ));
                }
                detail
            }
            Step::ValidationLevel {
                current, violators, ..
            } => {
                if violators.is_empty() {
                    format!("{current} -> strict")
                } else {
                    format!(
                        "{current} -> strict once no document fails the validator; now \
                         {violators}"
                    )
                }
            }
            Step::PreImages { .. } => "changeStreamPreAndPostImages on (collMod): each update \
                                        and delete keeps the document as it was, for change \
                                        streams that ask for it"
                .to_owned(),
            Step::CreateIndex { spec, .. } => spec.to_string(),
            Step::IndexVisibility { name, hidden, .. } => format!(
                "{name} (collMod; the index stays built, {})",
                if *hidden {
                    "the planner stops using it"
                } else {
                    "the planner may use it again"
                }
            ),
            Step::ConflictingIndex { server, wanted, .. } => {
                format!("server: {server} | model: {wanted}")
            }
            Step::ExtraIndex { index, .. } => {
                format!("{index} (left alone unless dropping is asked)")
            }
            Step::CreateDataKey { key, field, .. } => {
                format!("`{key}`, for the encrypted field {field}")
            }
            Step::ShardCollection {
                namespace,
                key,
                enable_sharding,
                ..
            } => {
                let first = if enable_sharding.is_some() {
                    " (after enableSharding: the server is before 6.0)"
                } else {
                    ""
                };
                format!("{namespace} on {key}{first}")
            }
            Step::ShardKeyDiffers {
                server,
                wanted,
                suggested,
                ..
            } => {
                let how = match suggested {
                    Some(command) => format!("to change it, run {command}"),
                    None => "the server (before 5.0) cannot change it in place: copy the \
                             documents to a new collection sharded on the model's key"
                        .to_owned(),
                };
                format!("server: {server} | model: {wanted}; left alone: {how}")
            }
        }
    }
}

fn property_count(validator: &Document) -> usize {
    validator
        .get_document("$jsonSchema")
        .and_then(|s| s.get_document("properties"))
        .map_or(0, |p| p.len())
}

/// How many `_id`s of failing documents a plan shows.
pub(crate) const VIOLATOR_SAMPLE: usize = 5;

/// The existing documents of a collection that fail a validator, counted
/// when the plan was made.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Violators {
    /// How many fail it.
    pub count: u64,
    /// The `_id`s of the first five of them, in `_id` order.
    pub ids: Vec<Bson>,
}

impl Violators {
    /// Whether no document fails.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The sampled `_id`s as text, for messages.
    pub fn id_texts(&self) -> Vec<String> {
        self.ids.iter().map(crate::error::id_text).collect()
    }
}

impl fmt::Display for Violators {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, fail) = if self.count == 1 {
            ("", "fails")
        } else {
            ("s", "fail")
        };
        write!(f, "{} existing document{s} {fail} it", self.count)?;
        if !self.ids.is_empty() {
            let more = if (self.ids.len() as u64) < self.count {
                ", ..."
            } else {
                ""
            };
            write!(f, " (_id {}{more})", self.id_texts().join(", "))?;
        }
        Ok(())
    }
}

/// The documents of a versioned model's collection per schema version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct VersionCount {
    /// Collection name.
    pub collection: String,
    /// The current version.
    pub current: u32,
    /// (version, documents), oldest first; versions with no document are
    /// left out (a version the model does not know is 0).
    pub counts: Vec<(u32, u64)>,
}

impl VersionCount {
    /// The documents at an earlier version than the current one.
    pub fn earlier(&self) -> u64 {
        self.counts
            .iter()
            .filter(|(v, _)| *v != self.current)
            .map(|(_, n)| n)
            .sum()
    }
}

impl fmt::Display for VersionCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.collection)?;
        if self.counts.is_empty() {
            return write!(f, " no documents");
        }
        for (i, (version, n)) in self.counts.iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            let current = if *version == self.current {
                " (current)"
            } else {
                ""
            };
            write!(f, "{sep}{n} at v{version}{current}")?;
        }
        Ok(())
    }
}

/// A collection whose model declares a shard key, left unsharded because
/// the server is not a mongos. Setup still creates the key's index.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Unsharded {
    /// Collection name.
    pub collection: String,
    /// The model's shard key document.
    pub key: Document,
}

impl fmt::Display for Unsharded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: shard key {} not applied: the server is not a mongos (its `hello` has no \
             `msg: \"isdbgrid\"`), so the collection stays unsharded; the key's index is created",
            self.collection, self.key
        )
    }
}

/// The commands that shard a collection, in order, as sent to the admin
/// database: `enableSharding` first when the server needs it.
pub(crate) fn shard_commands(
    namespace: &str,
    key: &Document,
    enable_sharding: Option<&str>,
) -> Vec<Document> {
    let mut commands = Vec::new();
    if let Some(database) = enable_sharding {
        commands.push(doc! { "enableSharding": database });
    }
    commands.push(doc! { "shardCollection": namespace, "key": key.clone() });
    commands
}
