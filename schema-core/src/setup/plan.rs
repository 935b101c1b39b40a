//! The plan: what setup would change on the server to make it match the
//! models, and the drift it found. Computing a plan only reads.
//!
//! A validator that would change is checked against the data first: the
//! plan counts the existing documents that fail the new one (a `$nor` of the
//! new `$jsonSchema` as a query) and names the first few by `_id`, so that
//! tightening a rule (a `max` lowered from 10 to 5 while documents hold 8
//! items) is seen before it makes every later write to those documents fail
//! with code 121. Setup refuses such a change unless told how
//! ([`OnViolations`](crate::OnViolations)).
//!
//! Index comparison is normalized so that an index setup created is never
//! reported as drifted: key order is significant, numeric types are not
//! (`1`, `1i64`, `1.0` are one direction), and an option left at its default
//! (`unique: false`, `sparse: false`) equals its absence.

use std::fmt;
use std::time::Duration;

use bson::{doc, Bson, Document};

use crate::model::index::collation::{self, IndexCollation};
use crate::model::index::text::TextShape;
use crate::model::index::{write_index, IndexSpec};

/// One index as the server reports it (or as a model declares it), compared
/// with numbers normalized.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerIndex {
    /// Its name.
    pub name: String,
    /// Its key document.
    pub keys: Document,
    /// `unique`.
    pub unique: bool,
    /// `sparse`.
    pub sparse: bool,
    /// `expireAfterSeconds`.
    pub expire_after: Option<Duration>,
    /// `partialFilterExpression`.
    pub partial_filter: Option<Document>,
    /// `hidden`.
    pub hidden: bool,
    /// The collation's locale and strength (see [`collation`]).
    pub collation: Option<IndexCollation>,
    /// A text index's fields, weights and languages (see
    /// [`text_index`](crate::model::index::text)); its `keys` are then its fields,
    /// each `"text"`, by name.
    pub text: Option<TextShape>,
}

impl ServerIndex {
    /// Normalizes what `listIndexes` returned.
    pub(crate) fn from_model(model: &mongodb::IndexModel) -> Self {
        let options = model.options.as_ref();
        let text = options.and_then(|o| TextShape::listed(&model.keys, o));
        ServerIndex {
            name: options.and_then(|o| o.name.clone()).unwrap_or_default(),
            keys: text
                .as_ref()
                .map_or_else(|| model.keys.clone(), TextShape::key_document),
            text,
            unique: options.and_then(|o| o.unique).unwrap_or(false),
            sparse: options.and_then(|o| o.sparse).unwrap_or(false),
            expire_after: options.and_then(|o| o.expire_after),
            partial_filter: options.and_then(|o| o.partial_filter_expression.clone()),
            hidden: options.and_then(|o| o.hidden).unwrap_or(false),
            collation: options
                .and_then(|o| o.collation.as_ref())
                .map(IndexCollation::from_driver),
        }
    }

    /// Normalizes what the model declares.
    pub(crate) fn from_spec(spec: &IndexSpec) -> Self {
        let text = spec.text_shape();
        ServerIndex {
            name: spec.name.clone(),
            keys: text
                .as_ref()
                .map_or_else(|| spec.key_document(), TextShape::key_document),
            text,
            unique: spec.unique,
            sparse: spec.sparse,
            expire_after: spec.expire_after,
            partial_filter: spec.partial_filter.clone(),
            hidden: spec.hidden,
            collation: spec.collation.clone(),
        }
    }

    /// Same keys in the same order (`bson::Document`'s own `==` ignores
    /// order), numbers normalized.
    pub(crate) fn same_keys(&self, other: &ServerIndex) -> bool {
        same_key_order(&self.keys, &other.keys)
    }

    /// Same keys and options (the name aside).
    pub(crate) fn same_definition(&self, other: &ServerIndex) -> bool {
        self.same_keys(other)
            && self.unique == other.unique
            && self.sparse == other.sparse
            && self.expire_after == other.expire_after
            && self.partial_filter.as_ref().map(normalize_doc)
                == other.partial_filter.as_ref().map(normalize_doc)
            && collation::same(self.collation.as_ref(), other.collation.as_ref())
            && self.text == other.text
    }
}

impl fmt::Display for ServerIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_index(
            f,
            &self.name,
            &self.keys,
            self.unique,
            self.sparse,
            self.expire_after,
            self.partial_filter.as_ref(),
        )?;
        if let Some(collation) = &self.collation {
            write!(f, " {collation}")?;
        }
        if let Some(text) = &self.text {
            write!(f, " {text}")?;
        }
        if self.hidden {
            f.write_str(" hidden")?;
        }
        Ok(())
    }
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

/// One step of a plan. More kinds of step may come (a new kind of drift), so
/// a `match` needs a `_` arm.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Action {
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
    /// commands of [`sharding_commands`](Action::sharding_commands).
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

impl Action {
    /// The collection it concerns.
    pub fn collection(&self) -> &str {
        match self {
            Action::CreateCollection { collection, .. }
            | Action::CreateTimeSeries { collection, .. }
            | Action::TimeSeriesDiffers { collection, .. }
            | Action::UpdateValidator { collection, .. }
            | Action::ValidationLevel { collection, .. }
            | Action::CreateIndex { collection, .. }
            | Action::IndexVisibility { collection, .. }
            | Action::ConflictingIndex { collection, .. }
            | Action::ExtraIndex { collection, .. }
            | Action::ShardCollection { collection, .. }
            | Action::ShardKeyDiffers { collection, .. } => collection,
        }
    }

    /// The commands `sync` sends to the admin database for this step, in
    /// order, as documents: for [`Action::ShardCollection`],
    /// `{enableSharding: db}` (servers before 6.0) then `{shardCollection:
    /// "db.coll", key: {...}}`; nothing for the other steps.
    pub fn sharding_commands(&self) -> Vec<Document> {
        match self {
            Action::ShardCollection {
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
            Action::ConflictingIndex { .. }
                | Action::ExtraIndex { .. }
                | Action::ValidationLevel { .. }
                | Action::TimeSeriesDiffers { .. }
                | Action::ShardKeyDiffers { .. }
        )
    }

    pub(crate) fn verb(&self) -> &'static str {
        match self {
            Action::CreateCollection { .. } => "create collection",
            Action::CreateTimeSeries { .. } => "create time series",
            Action::TimeSeriesDiffers { .. } => "drift: collection kind",
            Action::UpdateValidator { .. } => "update validator",
            Action::ValidationLevel { .. } => "drift: validation level",
            Action::CreateIndex { .. } => "create index",
            Action::IndexVisibility { hidden: true, .. } => "hide index",
            Action::IndexVisibility { hidden: false, .. } => "unhide index",
            Action::ConflictingIndex { .. } => "drift: index differs",
            Action::ExtraIndex { .. } => "drift: extra index",
            Action::ShardCollection { .. } => "shard collection",
            Action::ShardKeyDiffers { .. } => "drift: shard key",
        }
    }

    pub(crate) fn detail(&self) -> String {
        match self {
            Action::CreateCollection { validator, .. } => {
                format!("with validator ({} properties)", property_count(validator))
            }
            Action::CreateTimeSeries { timeseries, .. } => format!(
                "{}, no validator (a time-series collection takes none)",
                timeseries.describe()
            ),
            Action::TimeSeriesDiffers { server, wanted, .. } => format!(
                "server: {server} | model: {wanted}; left alone (nothing is converted in place): \
                 create the collection under a new name as the model declares it, copy the \
                 documents into it (e.g. an aggregation ending with `$out` to it), then drop or \
                 rename the old one and sync again"
            ),
            Action::UpdateValidator {
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
                    detail.push_str(&format!(
                        "; {violators}: refused unless the data is fixed or \
                         `on_violations` says how"
                    ));
                }
                detail
            }
            Action::ValidationLevel {
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
            Action::CreateIndex { spec, .. } => spec.to_string(),
            Action::IndexVisibility { name, hidden, .. } => format!(
                "{name} (collMod; the index stays built, {})",
                if *hidden {
                    "the planner stops using it"
                } else {
                    "the planner may use it again"
                }
            ),
            Action::ConflictingIndex { server, wanted, .. } => {
                format!("server: {server} | model: {wanted}")
            }
            Action::ExtraIndex { index, .. } => {
                format!("{index} (left alone unless dropping is asked)")
            }
            Action::ShardCollection {
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
            Action::ShardKeyDiffers {
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

/// What setup would do, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// The steps.
    pub actions: Vec<Action>,
    /// The schema's delete policies (see
    /// [`delete_policy`](crate::model::delete_policy)), printed after the steps.
    pub policies: crate::model::delete_policy::PolicyGraph,
    /// The collections whose models declare a shard key, left unsharded
    /// because the server is not a mongos (see [`shard`](crate::model::shard)).
    /// Not steps: a plan with only these is in sync.
    pub unsharded: Vec<Unsharded>,
    /// The documents of each versioned model's collection per schema
    /// version (see [`versions`](crate::evolution::versions)), counted when the plan
    /// was made. Not steps: a migration's progress, before and after.
    pub versions: Vec<VersionCount>,
}

impl Plan {
    /// Nothing to do and no drift.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// The steps that are drift.
    pub fn drift(&self) -> impl Iterator<Item = &Action> {
        self.actions.iter().filter(|a| a.is_drift())
    }
}

impl Plan {
    /// The notes that are not steps, one line each: the unsharded
    /// collections, then the versioned models' documents per version.
    fn fmt_notes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for unsharded in &self.unsharded {
            writeln!(f, "not sharded: {unsharded}")?;
        }
        for count in &self.versions {
            writeln!(f, "versions: {count}")?;
        }
        Ok(())
    }

    /// The delete policies, one line each under a heading (nothing when
    /// there are none).
    fn fmt_policies(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.policies.policies().is_empty() {
            return Ok(());
        }
        writeln!(f, "delete policies (parent -> child.reference: policy):")?;
        for policy in self.policies.policies() {
            writeln!(f, "  {policy}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.actions.is_empty() {
            writeln!(f, "in sync: nothing to do")?;
            self.fmt_notes(f)?;
            return self.fmt_policies(f);
        }
        let rows: Vec<[String; 3]> = self
            .actions
            .iter()
            .map(|a| [a.collection().to_owned(), a.verb().to_owned(), a.detail()])
            .collect();
        let header = [
            "collection".to_owned(),
            "action".to_owned(),
            "detail".to_owned(),
        ];
        let w0 = rows
            .iter()
            .chain([&header])
            .map(|r| r[0].len())
            .max()
            .unwrap_or(0);
        let w1 = rows
            .iter()
            .chain([&header])
            .map(|r| r[1].len())
            .max()
            .unwrap_or(0);
        for row in [&header].into_iter().chain(&rows) {
            writeln!(f, "{:w0$}  {:w1$}  {}", row[0], row[1], row[2])?;
        }
        self.fmt_notes(f)?;
        self.fmt_policies(f)
    }
}

/// Compares one collection's declared indexes with the server's, adding the
/// create, conflict and extra steps to `actions`.
pub(crate) fn diff_indexes(
    collection: &str,
    wanted: &[IndexSpec],
    server: &[ServerIndex],
    actions: &mut Vec<Action>,
) {
    let mut matched = vec![false; server.len()];
    for spec in wanted {
        let want = ServerIndex::from_spec(spec);
        let by_name = server.iter().position(|s| s.name == want.name);
        let by_keys = server.iter().position(|s| s.same_keys(&want));
        match by_name.or(by_keys) {
            Some(i) => {
                matched[i] = true;
                let found = &server[i];
                if found.name != want.name || !found.same_definition(&want) {
                    actions.push(Action::ConflictingIndex {
                        collection: collection.to_owned(),
                        server: Box::new(found.clone()),
                        wanted: Box::new(spec.clone()),
                    });
                } else if found.hidden != want.hidden {
                    actions.push(Action::IndexVisibility {
                        collection: collection.to_owned(),
                        name: found.name.clone(),
                        hidden: want.hidden,
                    });
                }
            }
            None => actions.push(Action::CreateIndex {
                collection: collection.to_owned(),
                spec: spec.clone(),
            }),
        }
    }
    for (index, used) in server.iter().zip(matched) {
        if !used && index.name != "_id_" {
            actions.push(Action::ExtraIndex {
                collection: collection.to_owned(),
                index: index.clone(),
            });
        }
    }
}

/// Whether two key documents name the same keys in the same order with the
/// same directions, numbers normalized (`1`, `1i64` and `1.0` are one).
pub(crate) fn same_key_order(a: &Document, b: &Document) -> bool {
    let (a, b) = (normalize_doc(a), normalize_doc(b));
    a.len() == b.len() && a.iter().eq(b.iter())
}

/// Whether the server's validator equals the model's, numbers normalized.
pub(crate) fn same_validator(server: Option<&Document>, wanted: &Document) -> bool {
    server.is_some_and(|s| normalize_doc(s) == normalize_doc(wanted))
}

/// Turns every number into a double so `1`, `1i64` and `1.0` compare equal.
pub(crate) fn normalize_doc(doc: &Document) -> Document {
    doc.iter().map(|(k, v)| (k.clone(), normalize(v))).collect()
}

fn normalize(value: &Bson) -> Bson {
    match value {
        Bson::Int32(n) => Bson::Double(f64::from(*n)),
        Bson::Int64(n) => Bson::Double(*n as f64),
        Bson::Document(d) => Bson::Document(normalize_doc(d)),
        Bson::Array(items) => Bson::Array(items.iter().map(normalize).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::{Direction, IndexOrigin};
    use bson::doc;

    fn spec() -> IndexSpec {
        IndexSpec::new(
            vec![
                ("authorId".into(), Direction::Asc),
                ("at".into(), Direction::Desc),
            ],
            IndexOrigin::Reference("author_id"),
        )
    }

    fn on_server(keys: Document, name: &str) -> ServerIndex {
        ServerIndex {
            name: name.into(),
            keys,
            unique: false,
            sparse: false,
            expire_after: None,
            partial_filter: None,
            hidden: false,
            collation: None,
            text: None,
        }
    }

    #[test]
    fn a_visibility_change_is_one_step_in_place() {
        let mut spec = spec();
        spec.hidden = true;
        let server = [on_server(spec.key_document(), &spec.name)];
        let mut actions = Vec::new();
        diff_indexes("posts", &[spec], &server, &mut actions);
        assert!(matches!(
            &actions[..],
            [Action::IndexVisibility { hidden: true, .. }]
        ));
        assert!(!actions[0].is_drift());
    }

    #[test]
    fn violators_show_the_count_and_the_sampled_ids() {
        let one = Violators {
            count: 1,
            ids: vec![Bson::from("c1")],
        };
        assert_eq!(one.to_string(), "1 existing document fails it (_id c1)");
        let many = Violators {
            count: 7,
            ids: vec![Bson::from(3), Bson::from("c1")],
        };
        assert_eq!(
            many.to_string(),
            "7 existing documents fail it (_id 3, c1, ...)"
        );
        assert!(Violators::default().is_empty());
    }

    #[test]
    fn numeric_types_and_defaults_do_not_drift() {
        let server = [
            on_server(doc! { "_id": 1 }, "_id_"),
            on_server(doc! { "authorId": 1.0, "at": -1_i64 }, "authorId_1_at_-1"),
        ];
        let mut actions = Vec::new();
        diff_indexes("posts", &[spec()], &server, &mut actions);
        assert!(actions.is_empty(), "{actions:?}");
    }

    #[test]
    fn key_order_is_significant() {
        let server = [on_server(
            doc! { "at": -1, "authorId": 1 },
            "authorId_1_at_-1",
        )];
        let mut actions = Vec::new();
        diff_indexes("posts", &[spec()], &server, &mut actions);
        assert!(matches!(actions[..], [Action::ConflictingIndex { .. }]));
    }

    #[test]
    fn extra_and_missing_are_reported() {
        let server = [on_server(doc! { "title": 1 }, "title_1")];
        let mut actions = Vec::new();
        diff_indexes("posts", &[spec()], &server, &mut actions);
        assert!(matches!(
            actions[..],
            [Action::CreateIndex { .. }, Action::ExtraIndex { .. }]
        ));
        let plan = Plan {
            actions,
            ..Plan::default()
        };
        let table = plan.to_string();
        assert!(table.contains("create index") && table.contains("drift: extra index"));
    }
}
