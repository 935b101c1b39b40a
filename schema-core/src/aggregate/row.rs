//! Output rows: [`Row`], derived with `#[derive(Row)]`, and the [`RowSpec`]
//! its derive builds: the `$group` stage and the `$project` that gives the
//! rows their declared shape.

use bson::{doc, Bson, Document as BsonDocument};
use serde::de::DeserializeOwned;

use crate::model::codec::MAX_DOCUMENT_SIZE;
use crate::model::timeseries::{Granularity, TimeSeriesSpec};
use crate::model::Document;

/// A row of a `group` on [`Of`](Row::Of) (a model, or the rows of an
/// earlier group, `Rows<Earlier>`): each field says where it comes from,
/// by typed paths, and the compiler checks its type against what its
/// accumulator gives. Derived with `#[derive(Row)]`; see
/// [`aggregate`](crate::aggregate) for the attributes.
pub trait Row: DeserializeOwned + Send + Unpin + 'static {
    /// What is grouped: a model's documents, or an earlier row's rows.
    type Of: RowSource;
    /// Whose typed fields filter and sort the rows after the group: the
    /// row's own constants (`Rows<Self>`), or the model's, for a row that
    /// is a model itself (written with `merge_into`).
    type Scope;
    /// The type of the row's field constants.
    type RowFields: 'static;
    /// The row's field constants, by which a later group reads its rows.
    const ROW_FIELDS: Self::RowFields;
    /// The Rust type name, for messages.
    const ROW_NAME: &'static str;
    /// The group's keys and accumulators.
    fn spec() -> RowSpec;
}

/// What a row groups, and the typed paths it names there: a model
/// (`#[row(of = Order)]`) or the rows of an earlier group
/// (`#[row(of = Rows<CustomerProduct>)]`, implemented beside `Rows`).
pub trait RowSource: 'static {
    /// The type of the field constants.
    type SourceFields: 'static;
    /// The field constants the row's attributes name.
    const SOURCE_FIELDS: Self::SourceFields;
    /// The collection the pipeline runs on, for messages.
    const SOURCE_COLLECTION: &'static str;
    /// Whether the paths are a model's stored paths (checked against its
    /// arrays), not an earlier row's fields.
    #[doc(hidden)]
    const SOURCE_IS_MODEL: bool;
    /// The time series the model is stored as (for `trunc` without a unit).
    #[doc(hidden)]
    const SOURCE_TIMESERIES: Option<TimeSeriesSpec>;
}

impl<M: Document> RowSource for M {
    type SourceFields = M::Fields;
    const SOURCE_FIELDS: M::Fields = M::FIELDS;
    const SOURCE_COLLECTION: &'static str = M::COLLECTION;
    const SOURCE_IS_MODEL: bool = true;
    const SOURCE_TIMESERIES: Option<TimeSeriesSpec> = M::TIMESERIES;
}

/// One array accumulator of a row, for the 16 MiB check.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ArrayAcc {
    field: String,
    max: u32,
    item_bytes: u64,
}

/// The `$group` of a [`Row`]: built by its derive, one call per field.
#[derive(Debug, Clone, Default)]
pub struct RowSpec {
    keys: BsonDocument,
    accumulators: BsonDocument,
    /// `add_to_set` fields, cut to their `max` after the group.
    slices: Vec<(String, u32)>,
    /// The model paths the group reads.
    paths: Vec<&'static str>,
    /// Keys truncated to a time series' granularity (row field, path).
    granular: Vec<(String, &'static str)>,
    arrays: Vec<ArrayAcc>,
}

fn field_ref(path: &str) -> Bson {
    Bson::String(format!("${path}"))
}

impl RowSpec {
    /// An empty spec.
    pub fn new() -> Self {
        Self::default()
    }

    /// The row field `name` is a group key: the value at `path`.
    pub fn key(&mut self, name: &str, path: &'static str) {
        self.paths.push(path);
        self.keys.insert(name, field_ref(path));
    }

    /// The row field `name` is a group key: the date at `path` truncated
    /// to `unit` (`day`, `month`, `hour`, ...).
    pub fn date_key(&mut self, name: &str, path: &'static str, unit: &str) {
        self.paths.push(path);
        self.keys.insert(
            name,
            doc! { "$dateTrunc": { "date": field_ref(path), "unit": unit } },
        );
    }

    /// The row field `name` is a group key: the time at `path` truncated
    /// to the granularity the time series declares (resolved when the
    /// pipeline is sent, and refused when `path` is not its time field).
    pub fn granular_key(&mut self, name: &str, path: &'static str) {
        self.paths.push(path);
        self.granular.push((name.to_owned(), path));
        self.keys.insert(
            name,
            doc! { "$dateTrunc": { "date": field_ref(path), "unit": Bson::Null } },
        );
    }

    /// Gives each `trunc` without a unit the unit of `series`' granularity;
    /// the reason when one cannot have it.
    pub(crate) fn at_granularity(
        &mut self,
        series: Option<TimeSeriesSpec>,
    ) -> std::result::Result<(), String> {
        for (name, path) in std::mem::take(&mut self.granular) {
            let unit = match series {
                Some(ts) if ts.time == path => match (ts.granularity, ts.span_seconds) {
                    (Some(Granularity::Hours), _) => "hour",
                    (Some(Granularity::Minutes), _) => "minute",
                    (Some(Granularity::Seconds), _) | (None, None) => "second",
                    (None, Some(_)) => return Err(format!(
                        "`{name}` truncates `{path}` to the declared granularity, and the time series declares bucket spans in seconds, not a granularity: name a unit (`trunc = hour`)"
                    )),
                },
                Some(ts) => return Err(format!(
                    "`{name}` truncates `{path}` to the declared granularity, and only the time series' time field (`{}`) has one: name a unit (`trunc = day`)",
                    ts.time
                )),
                None => return Err(format!(
                    "`{name}` truncates `{path}` to the declared granularity, and only a time series declares one: name a unit (`trunc = day`)"
                )),
            };
            if let Some(Bson::Document(key)) = self.keys.get_mut(&name) {
                if let Ok(trunc) = key.get_document_mut("$dateTrunc") {
                    trunc.insert("unit", unit);
                }
            }
        }
        Ok(())
    }

    /// `count`: the documents of the group.
    pub fn count(&mut self, name: &str) {
        self.accumulators.insert(name, doc! { "$sum": 1 });
    }

    /// `$op` (`$sum`, `$avg`, `$min`, `$max`, `$first`, `$last`) of the value at `path`.
    pub fn single(&mut self, name: &str, op: &str, path: &'static str) {
        self.paths.push(path);
        self.accumulators.insert(name, doc! { op: field_ref(path) });
    }

    /// `$op` (`$sum`, `$avg`) of the product of the values at `paths`.
    pub fn product(&mut self, name: &str, op: &str, paths: [&'static str; 2]) {
        self.paths.extend(paths);
        let [a, b] = paths;
        self.accumulators.insert(
            name,
            doc! { op: { "$multiply": [field_ref(a), field_ref(b)] } },
        );
    }

    fn array(&mut self, name: &str, path: &'static str, max: u32, item_bytes: u64) {
        self.paths.push(path);
        self.arrays.push(ArrayAcc {
            field: name.to_owned(),
            max,
            item_bytes,
        });
    }

    /// `push`: the first `max` values at `path`, in the order the
    /// documents reach the group (`$firstN`).
    pub fn push(&mut self, name: &str, path: &'static str, max: u32, item_bytes: u64) {
        self.array(name, path, max, item_bytes);
        self.accumulators.insert(
            name,
            doc! { "$firstN": { "input": field_ref(path), "n": i64::from(max) } },
        );
    }

    /// `top` / `bottom`: the values at `path` of the first (last) `max`
    /// documents of the group in the order `by` (`$topN` / `$bottomN`).
    pub fn ranked(
        &mut self,
        name: &str,
        path: &'static str,
        max: u32,
        item_bytes: u64,
        by: &[(&'static str, i32)],
        bottom: bool,
    ) {
        self.array(name, path, max, item_bytes);
        self.paths.extend(by.iter().map(|(p, _)| *p));
        let sort: BsonDocument = by
            .iter()
            .map(|(p, d)| ((*p).to_owned(), Bson::Int32(*d)))
            .collect();
        let op = if bottom { "$bottomN" } else { "$topN" };
        self.accumulators.insert(
            name,
            doc! { op: { "n": i64::from(max), "sortBy": sort, "output": field_ref(path) } },
        );
    }

    /// `add_to_set`: distinct values at `path`, at most `max` of them kept
    /// (the server has no bounded `$addToSet`: the set is cut with `$slice`
    /// right after the group).
    pub fn add_to_set(&mut self, name: &str, path: &'static str, max: u32, item_bytes: u64) {
        self.array(name, path, max, item_bytes);
        self.slices.push((name.to_owned(), max));
        self.accumulators
            .insert(name, doc! { "$addToSet": field_ref(path) });
    }

    /// The row's one group key, when it has exactly one.
    fn single_key(&self) -> Option<(&String, &Bson)> {
        let mut keys = self.keys.iter();
        match (keys.next(), keys.next()) {
            (Some(key), None) => Some(key),
            _ => None,
        }
    }

    /// The model paths the group reads.
    pub(crate) fn paths(&self) -> &[&'static str] {
        &self.paths
    }

    /// The `$group` stage.
    pub(crate) fn group_stage(&self) -> BsonDocument {
        let mut group = BsonDocument::new();
        match self.single_key() {
            // One key: grouped on the value itself, as written by hand (a
            // sub-document `{key: ..}` made the server's group slower:
            // `benches/aggregate.rs`, BENCHMARKS.md).
            Some((_, value)) => group.insert("_id", value.clone()),
            None if self.keys.is_empty() => group.insert("_id", Bson::Null),
            None => group.insert("_id", self.keys.clone()),
        };
        for (name, acc) in &self.accumulators {
            group.insert(name.clone(), acc.clone());
        }
        doc! { "$group": group }
    }

    /// The `$project` after it: the keys out of `_id`, each array
    /// accumulator as it is (an `add_to_set` cut to its `max`).
    pub(crate) fn project_stage(&self) -> BsonDocument {
        let mut project = BsonDocument::new();
        if !self.keys.contains_key("_id") {
            project.insert("_id", 0);
        }
        match self.single_key() {
            Some((name, _)) => {
                project.insert(name.clone(), field_ref("_id"));
            }
            None => {
                for name in self.keys.keys() {
                    project.insert(name.clone(), field_ref(&format!("_id.{name}")));
                }
            }
        }
        for name in self.accumulators.keys() {
            match self.slices.iter().find(|(n, _)| n == name) {
                Some((_, max)) => project.insert(
                    name.clone(),
                    doc! { "$slice": [field_ref(name), i64::from(*max)] },
                ),
                None => project.insert(name.clone(), 1),
            };
        }
        doc! { "$project": project }
    }

    /// The most bytes the row's arrays may take, and the arithmetic, when
    /// that is over what one document may hold.
    pub(crate) fn over_size(&self) -> Option<String> {
        let parts: Vec<(String, u64)> = self
            .arrays
            .iter()
            .map(|a| {
                let bytes = array_bytes(a.max, a.item_bytes);
                let text = format!(
                    "`{}`: {} items of at most {} bytes, each with its type byte and index key ({} bytes)",
                    a.field, a.max, a.item_bytes, bytes
                );
                (text, bytes)
            })
            .collect();
        let total: u64 = parts.iter().map(|(_, b)| *b).fold(0, u64::saturating_add);
        let limit = MAX_DOCUMENT_SIZE as u64;
        (total > limit).then(|| {
            let terms: Vec<String> = parts.into_iter().map(|(t, _)| t).collect();
            format!(
                "{} = {total} bytes, over the {limit} bytes (16 MiB) one row may hold: lower `max` (or `bytes`)",
                terms.join(" + ")
            )
        })
    }
}

/// The bytes of an array of `n` items of at most `item` bytes: per item a
/// type byte, its index as a decimal key and the key's NUL byte, then the
/// value.
fn array_bytes(n: u32, item: u64) -> u64 {
    let mut total = 0u64;
    let mut start = 0u64;
    let mut digits = 1u64;
    let n = u64::from(n);
    while start < n {
        let end = (start.max(1) * 10).min(n);
        let count = if start == 0 { end.min(10) } else { end - start };
        total = total.saturating_add(count.saturating_mul(2 + digits + item));
        start += count;
        digits += 1;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_count_their_keys() {
        assert_eq!(array_bytes(0, 8), 0);
        assert_eq!(array_bytes(10, 8), 10 * 11);
        assert_eq!(array_bytes(11, 8), 10 * 11 + 12);
        assert_eq!(array_bytes(100, 0), 10 * 3 + 90 * 4);
    }

    #[test]
    fn a_group_and_its_shape() {
        let mut spec = RowSpec::new();
        spec.key("authorId", "authorId");
        spec.count("posts");
        spec.ranked("titles", "title", 5, 400, &[("at", -1)], false);
        spec.add_to_set("tags", "tags", 3, 20);
        assert_eq!(
            spec.group_stage(),
            doc! { "$group": {
                "_id": "$authorId",
                "posts": { "$sum": 1 },
                "titles": { "$topN": { "n": 5_i64, "sortBy": { "at": -1 }, "output": "$title" } },
                "tags": { "$addToSet": "$tags" },
            } }
        );
        assert_eq!(
            spec.project_stage(),
            doc! { "$project": {
                "_id": 0, "authorId": "$_id", "posts": 1, "titles": 1,
                "tags": { "$slice": ["$tags", 3_i64] },
            } }
        );
        assert!(spec.over_size().is_none());
        let mut two = RowSpec::new();
        two.key("authorId", "authorId");
        two.date_key("day", "at", "day");
        assert_eq!(
            two.group_stage(),
            doc! { "$group": { "_id": {
                "authorId": "$authorId",
                "day": { "$dateTrunc": { "date": "$at", "unit": "day" } },
            } } }
        );
        assert_eq!(
            two.project_stage(),
            doc! { "$project": { "_id": 0, "authorId": "$_id.authorId", "day": "$_id.day" } }
        );
        spec.push("many", "at", 2_000_000, 8);
        let msg = spec.over_size().unwrap();
        assert!(
            msg.contains("`many`: 2000000 items of at most 8 bytes"),
            "{msg}"
        );
        assert!(msg.contains("over the 16777216 bytes"), "{msg}");
    }
}
