//! Reference candidates: a field whose values look like ids (ObjectIds,
//! short strings, ints) and are found as `_id`s of another collection.
//! While a collection is read, each path keeps a count of its values by
//! kind and its first [`REFERENCE_SAMPLE`] distinct values; afterwards each
//! path whose values are of one kind is looked up, with one
//! `find({_id: {$in: [...]}})`, in every collection whose sampled `_id`s are
//! of that kind. For id arrays kept on both sides, the links are followed
//! to the other side in batches, to count the one-sided ones.

use std::collections::BTreeMap;

use bson::{doc, Bson, RawBsonRef, RawDocumentBuf};
use futures_util::TryStreamExt;
use mongodb::Database;
use serde::Serialize;

use crate::error::{id_text, Error, Result};

/// How many distinct values of a path are looked up (the first seen).
pub const REFERENCE_SAMPLE: usize = 100;

/// A path is a reference when at least this share of its looked-up values
/// are `_id`s of the other collection (90%), and its values are of the
/// kind of that collection's `_id`s at least this often.
pub const REFERENCE_FOUND: f64 = 0.9;

/// How many links (holder's `_id`, id) of a top-level id array are kept
/// for counting one-sided links.
pub const LINKS_KEPT: usize = 10_000;

/// Links followed per read of the other side.
const LINK_BATCH: usize = 100;

/// How many paths of one collection are kept as candidates.
pub(super) const CANDIDATE_PATHS: usize = 256;

/// A string this long or longer is text, not an id.
const ID_TEXT_MAX: usize = 64;

/// A field whose values are `_id`s of another collection.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ReferenceAudit {
    /// The collection holding the field.
    pub collection: String,
    /// The stored path (`authorId`, `items.product_id`, `courseIds`).
    pub path: String,
    /// The collection whose `_id`s it holds.
    pub to: String,
    /// Whether it is an array of ids.
    pub array: bool,
    /// How many distinct values were looked up in `to`.
    pub checked: u64,
    /// How many of them are `_id`s there.
    pub found: u64,
    /// Whether an index of `collection` is led by `path` (its first key).
    pub indexed: bool,
    /// For an id array kept on both sides (`to` holding an id array back),
    /// the links of the documents read that the other side does not list.
    pub one_sided: Option<OneSided>,
    /// The registered model of `collection` that declares an index led by
    /// `path` ([`audit_with`](crate::audit_with)), by name: not `indexed`
    /// then means declared and not yet created.
    pub declared: Option<String>,
}

/// The links of an id array whose other side does not list them back.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct OneSided {
    /// The other side's id array, in the reference's `to` collection.
    pub inverse: String,
    /// How many links were followed (at most [`LINKS_KEPT`]; links to a
    /// document that is not there are left out).
    pub links: u64,
    /// How many of them the other side does not list.
    pub one_sided: u64,
    /// The `_id`s of the first five documents holding a one-sided link.
    pub ids: Vec<String>,
}

impl ReferenceAudit {
    /// Whether it is a finding: no index is led by it, or links are
    /// one-sided.
    pub fn is_finding(&self) -> bool {
        !self.indexed || self.one_sided.as_ref().is_some_and(|o| o.one_sided > 0)
    }

    /// What to do about it, when it is a finding.
    pub fn advice(&self) -> Option<String> {
        let mut advice = Vec::new();
        match (&self.declared, self.indexed) {
            (_, true) => {}
            (Some(model), false) => advice.push(format!(
                "no index is led by `{}` yet: `{model}` declares one, not yet created: run \
                 sync (until then every lookup by it reads the whole collection)",
                self.path
            )),
            (None, false) => advice.push(format!(
                "no index is led by `{}`: every lookup by it reads the whole collection \
                 (seed 001: index every field used for lookups); declare it \
                 `#[reference(index, to = ..)]`{} and setup creates the index",
                self.path,
                if self.array {
                    " or `#[many_to_many(.., to = ..)]`"
                } else {
                    ""
                },
            )),
        }
        if let Some(o) = self.one_sided.as_ref().filter(|o| o.one_sided > 0) {
            advice.push(format!(
                "{} of {} links are one-sided ({}.{} does not list them back; _id {}): \
                 `#[many_to_many(two_sided, ..)]` writes both sides in one transaction, \
                 `schema verify` finds such links and `schema repair` fixes them",
                o.one_sided,
                o.links,
                self.to,
                o.inverse,
                o.ids.join(", ")
            ));
        }
        (!advice.is_empty()).then(|| advice.join("; "))
    }
}

/// The kinds of value an id can be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    ObjectId,
    String,
    Int32,
    Int64,
}

impl Kind {
    fn of(value: RawBsonRef<'_>) -> Option<Kind> {
        match value {
            RawBsonRef::ObjectId(_) => Some(Kind::ObjectId),
            RawBsonRef::String(s) if s.len() < ID_TEXT_MAX => Some(Kind::String),
            RawBsonRef::Int32(_) => Some(Kind::Int32),
            RawBsonRef::Int64(_) => Some(Kind::Int64),
            _ => None,
        }
    }

    fn of_bson(value: &Bson) -> Option<Kind> {
        match value {
            Bson::ObjectId(_) => Some(Kind::ObjectId),
            Bson::String(_) => Some(Kind::String),
            Bson::Int32(_) => Some(Kind::Int32),
            Bson::Int64(_) => Some(Kind::Int64),
            _ => None,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

const KINDS: [Kind; 4] = [Kind::ObjectId, Kind::String, Kind::Int32, Kind::Int64];

/// How many values of each kind were seen (and how many of none).
#[derive(Debug, Default)]
pub(super) struct IdKinds {
    kinds: [u64; 4],
    values: u64,
}

impl IdKinds {
    pub(super) fn add(&mut self, value: RawBsonRef<'_>) {
        self.count(Kind::of(value));
    }

    /// A value of this kind (`None`: of no kind an id can be).
    fn count(&mut self, kind: Option<Kind>) {
        self.values += 1;
        if let Some(kind) = kind {
            self.kinds[kind.index()] += 1;
        }
    }

    /// The kind of at least [`REFERENCE_FOUND`] of the values, if any.
    fn dominant(&self) -> Option<Kind> {
        KINDS.into_iter().find(|k| {
            self.values > 0 && self.kinds[k.index()] as f64 >= self.values as f64 * REFERENCE_FOUND
        })
    }
}

/// What one path keeps.
#[derive(Debug, Default)]
pub(super) struct Candidate {
    kinds: IdKinds,
    distinct: Vec<Bson>,
    array: bool,
    links: Vec<(Bson, Bson)>,
}

/// Whether `kept`, a value kept as distinct, is `value` (both of one of
/// the kinds an id can be: `==` on the two as `Bson`, without making one).
fn same(kept: &Bson, value: RawBsonRef<'_>) -> bool {
    match (kept, value) {
        (Bson::ObjectId(a), RawBsonRef::ObjectId(b)) => *a == b,
        (Bson::String(a), RawBsonRef::String(b)) => a == b,
        (Bson::Int32(a), RawBsonRef::Int32(b)) => *a == b,
        (Bson::Int64(a), RawBsonRef::Int64(b)) => *a == b,
        _ => false,
    }
}

impl Candidate {
    /// A value at its path (an item of an array there when `in_array`):
    /// `value` when it is a string, an ObjectId, an int or a long, `None`
    /// for a value of any other type (only counted).
    pub(super) fn add(&mut self, value: Option<RawBsonRef<'_>>, in_array: bool) {
        let kind = value.and_then(Kind::of);
        self.kinds.count(kind);
        self.array |= in_array;
        if let (Some(value), Some(_)) = (value, kind) {
            if self.distinct.len() < REFERENCE_SAMPLE
                && !self.distinct.iter().any(|kept| same(kept, value))
            {
                self.distinct.extend(Bson::try_from(value).ok());
            }
        }
    }

    /// A link from the document `own` to `value`, an item of the top-level
    /// array at its path (`value` as in [`add`](Self::add)).
    pub(super) fn link(&mut self, own: RawBsonRef<'_>, value: Option<RawBsonRef<'_>>) {
        let Some(value) = value.filter(|v| Kind::of(*v).is_some()) else {
            return;
        };
        if self.links.len() >= LINKS_KEPT {
            return;
        }
        if let (Ok(own), Ok(value)) = (Bson::try_from(own), Bson::try_from(value)) {
            self.links.push((own, value));
        }
    }
}

/// The candidate paths of one collection (at most [`CANDIDATE_PATHS`],
/// the first seen), by name.
#[derive(Debug, Default)]
pub(super) struct Candidates {
    paths: BTreeMap<String, Candidate>,
}

impl Candidates {
    /// The paths kept, by name.
    pub(super) fn new(paths: BTreeMap<String, Candidate>) -> Self {
        Candidates { paths }
    }
}

/// What a collection's read kept for its references: its name, its
/// `_id`s' kinds and its candidate paths.
pub(super) type Read<'a> = (&'a str, &'a IdKinds, &'a Candidates);

/// The references of each collection read (in the order of `scans`).
pub(super) async fn resolve(db: &Database, scans: &[Read<'_>]) -> Result<Vec<Vec<ReferenceAudit>>> {
    let mut found_all = Vec::with_capacity(scans.len());
    for (name, _, candidates) in scans {
        let mut references = Vec::new();
        let mut leading: Option<Vec<String>> = None;
        for (path, candidate) in &candidates.paths {
            let Some(kind) = candidate.kinds.dominant() else {
                continue;
            };
            let values: Vec<Bson> = candidate
                .distinct
                .iter()
                .filter(|v| Kind::of_bson(v) == Some(kind))
                .cloned()
                .collect();
            if values.is_empty() {
                continue;
            }
            for (target, _, _) in scans.iter().filter(|t| t.1.dominant() == Some(kind)) {
                let found = count_ids(db, target, &values).await?;
                if (found as f64) < values.len() as f64 * REFERENCE_FOUND {
                    continue;
                }
                if leading.is_none() {
                    leading = Some(leading_keys(db, name).await?);
                }
                references.push(ReferenceAudit {
                    collection: (*name).to_owned(),
                    path: path.clone(),
                    to: (*target).to_owned(),
                    array: candidate.array,
                    checked: values.len() as u64,
                    found,
                    indexed: leading.iter().flatten().any(|k| k == path),
                    one_sided: None,
                    declared: None,
                });
            }
        }
        found_all.push(references);
    }
    one_sided(db, scans, &mut found_all).await?;
    Ok(found_all)
}

/// How many of `ids` are `_id`s of `collection`.
async fn count_ids(db: &Database, collection: &str, ids: &[Bson]) -> Result<u64> {
    let refused = |e| Error::from_server(e, "look up ids in", collection);
    let found: Vec<RawDocumentBuf> = db
        .collection::<RawDocumentBuf>(collection)
        .find(doc! { "_id": { "$in": ids } })
        .projection(doc! { "_id": 1 })
        .await
        .map_err(refused)?
        .try_collect()
        .await
        .map_err(refused)?;
    Ok(found.len() as u64)
}

/// The first key of each index of `collection`.
async fn leading_keys(db: &Database, collection: &str) -> Result<Vec<String>> {
    let indexes = crate::query::server_indexes::listed_indexes(db, collection).await?;
    Ok(indexes
        .iter()
        .filter_map(|i| i.keys.keys().next().cloned())
        .collect())
}

/// Fills [`ReferenceAudit::one_sided`] for each top-level id array whose
/// target holds a top-level id array pointing back.
async fn one_sided(
    db: &Database,
    scans: &[Read<'_>],
    found: &mut [Vec<ReferenceAudit>],
) -> Result<()> {
    let pairs: Vec<(usize, usize, String)> = found
        .iter()
        .enumerate()
        .flat_map(|(a, refs)| refs.iter().enumerate().map(move |(r, re)| (a, r, re)))
        .filter(|(_, _, re)| re.array && !re.path.contains('.'))
        .filter_map(|(a, r, re)| {
            let inverse = found.iter().flatten().find(|back| {
                back.collection == re.to
                    && back.to == re.collection
                    && back.array
                    && !back.path.contains('.')
                    && (back.collection != re.collection || back.path != re.path)
            })?;
            Some((a, r, inverse.path.clone()))
        })
        .collect();
    for (a, r, inverse) in pairs {
        let re = &found[a][r];
        let links = &scans[a].2.paths[&re.path].links;
        let counted = count_one_sided(db, &re.to, &inverse, links).await?;
        found[a][r].one_sided = Some(counted);
    }
    Ok(())
}

/// Follows `links` (holder's `_id`, target's `_id`) to `to` in batches of
/// [`LINK_BATCH`], one `$in` read each, and counts those whose target's
/// `inverse` array does not hold the holder's `_id`.
async fn count_one_sided(
    db: &Database,
    to: &str,
    inverse: &str,
    links: &[(Bson, Bson)],
) -> Result<OneSided> {
    let refused = |e| Error::from_server(e, "read the links of", to);
    let coll = db.collection::<RawDocumentBuf>(to);
    let mut counted = OneSided {
        inverse: inverse.to_owned(),
        links: 0,
        one_sided: 0,
        ids: Vec::new(),
    };
    for batch in links.chunks(LINK_BATCH) {
        let mut targets: Vec<&Bson> = Vec::new();
        for (_, target) in batch {
            if !targets.contains(&target) {
                targets.push(target);
            }
        }
        let read: Vec<RawDocumentBuf> = coll
            .find(doc! { "_id": { "$in": targets } })
            .projection(doc! { inverse: 1 })
            .await
            .map_err(refused)?
            .try_collect()
            .await
            .map_err(refused)?;
        let listed: Vec<(Bson, Vec<Bson>)> =
            read.iter().filter_map(|raw| listed(raw, inverse)).collect();
        for (holder, target) in batch {
            let Some((_, back)) = listed.iter().find(|(id, _)| id == target) else {
                continue;
            };
            counted.links += 1;
            if !back.contains(holder) {
                counted.one_sided += 1;
                let holder = id_text(holder);
                if counted.ids.len() < 5 && !counted.ids.contains(&holder) {
                    counted.ids.push(holder);
                }
            }
        }
    }
    Ok(counted)
}

/// A target's `_id` and the ids its `inverse` array lists.
fn listed(raw: &RawDocumentBuf, inverse: &str) -> Option<(Bson, Vec<Bson>)> {
    let id = Bson::try_from(raw.get("_id").ok()??).ok()?;
    let back = match raw.get(inverse) {
        Ok(Some(RawBsonRef::Array(array))) => array
            .into_iter()
            .flatten()
            .filter_map(|v| Bson::try_from(v).ok())
            .collect(),
        _ => Vec::new(),
    };
    Some((id, back))
}

/// What the walk kept of each candidate path, as text: the one place its
/// state is spelled out, for the test that pins the walk's results.
#[cfg(test)]
pub(super) fn dump(ids: &IdKinds, candidates: &Candidates) -> String {
    use std::fmt::Write;
    let mut out = format!("ids: {:?} of {}\n", ids.kinds, ids.values);
    for (path, c) in &candidates.paths {
        let distinct: Vec<String> = c.distinct.iter().map(|v| v.to_string()).collect();
        let links: Vec<String> = c
            .links
            .iter()
            .take(3)
            .chain(c.links.last())
            .map(|(a, b)| format!("{a}>{b}"))
            .collect();
        let _ = writeln!(
            out,
            "candidate {path:?}: kinds {:?} of {}, array {}, {} distinct [{}], {} links [{}]",
            c.kinds.kinds,
            c.kinds.values,
            c.array,
            distinct.len(),
            distinct.join(", "),
            c.links.len(),
            links.join(", ")
        );
    }
    out
}
