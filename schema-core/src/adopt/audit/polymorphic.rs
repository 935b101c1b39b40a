//! Polymorphic sub-documents: a string field beside a sub-document whose
//! value decides the sub-document's keys (seed 004's `type` deciding
//! `details`). Reported as information, so that a model can declare a
//! tagged enum; not a finding.

use std::collections::{BTreeMap, BTreeSet};

use bson::RawDocument;
use serde::Serialize;

use super::elements::{key_ok, Elements};
use super::paths::{Child, PathId, Paths};

/// A string field with more distinct values than this is not a tag.
pub const TAG_VALUES: usize = 20;

/// Keys kept per tag value.
const KEYS: usize = 100;

/// Pairs (tag, sub-document) followed per collection.
const PAIRS: usize = 256;

/// A sub-document whose keys a string field beside it decides.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PolymorphicAudit {
    /// The collection.
    pub collection: String,
    /// The tag's stored path (`type`).
    pub tag: String,
    /// The sub-document's stored path (`details`).
    pub path: String,
    /// Per tag value, in value order: the documents holding it and the keys
    /// their sub-documents hold.
    pub variants: Vec<Variant>,
}

/// One value of a polymorphic sub-document's tag.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Variant {
    /// The tag's value (`book`): the only stored value an audit shows
    /// besides `_id`s, as it names the variant.
    pub tag: String,
    /// How many sub-documents were seen with it.
    pub seen: u64,
    /// The keys seen in them, in key order (all of them, whether every one
    /// holds each or not).
    pub keys: Vec<String>,
}

/// What one (tag, sub-document) pair keeps: per tag value, how many and
/// the paths of the keys (at most [`KEYS`]); `None` once the tag has shown
/// more than [`TAG_VALUES`] values.
type Pair = Option<BTreeMap<String, (u64, Vec<PathId>)>>;

/// A string field or a sub-document of one level of a document: its path,
/// and where its value lies in the document's bytes (offset, length).
pub(super) type Placed = (PathId, u32, u32);

/// The pairs of one collection, each named `prefix NUL tag NUL
/// sub-document key` (a stored name holds no NUL), in the order first seen.
#[derive(Debug, Default)]
pub(super) struct Shapes {
    /// Each pair's name, sub-document path and what it keeps.
    pairs: Vec<(String, PathId, Pair)>,
    /// By the tag's path: each of its pairs' level and sub-document paths,
    /// and its place in `pairs`.
    by_tag: Vec<Vec<(PathId, PathId, usize)>>,
    /// The paths of a level's sub-documents' keys, and where each
    /// sub-document's start, reused.
    keys: Vec<PathId>,
    starts: Vec<usize>,
}

/// The key `child` holds under `prefix` (`child`'s name without the
/// prefix).
fn key_of<'p>(prefix: &str, child: &'p str) -> &'p str {
    match prefix.len() {
        0 => child,
        n => child.get(n + 1..).unwrap_or(child),
    }
}

/// The bytes `(offset, length)` of `doc`.
fn bytes_at(doc: &[u8], at: u32, len: u32) -> &[u8] {
    let at = at as usize;
    doc.get(at..at + len as usize).unwrap_or_default()
}

impl Shapes {
    /// One level at path `level` of the document `doc` holding these
    /// string fields and sub-documents.
    pub(super) fn add(
        &mut self,
        paths: &mut Paths,
        level: PathId,
        strings: &[Placed],
        subs: &[Placed],
        doc: &[u8],
    ) {
        // Each sub-document's keys, as the walk found them: its paths in
        // `found`, from its start in `starts`.
        let mut found = std::mem::take(&mut self.keys);
        let mut starts = std::mem::take(&mut self.starts);
        found.clear();
        starts.clear();
        for &(key, at, len) in subs {
            starts.push(found.len());
            if let Ok(sub) = RawDocument::from_bytes(bytes_at(doc, at, len)) {
                for (n, element) in Elements::of(sub).enumerate() {
                    let (k, value) = (element.key, element.value());
                    if value.is_none() {
                        if key_ok(k) {
                            continue;
                        }
                        break;
                    }
                    match paths.child(key, k, n) {
                        Child::At(path) => found.push(path),
                        Child::Past => {}
                        Child::NotUtf8 => break,
                    }
                }
            }
        }
        starts.push(found.len());
        for &(tag, at, len) in strings {
            let Ok(value) = std::str::from_utf8(bytes_at(doc, at, len)) else {
                continue;
            };
            for (i, &(key, _, _)) in subs.iter().enumerate() {
                let Some(entry) = self.pair(paths, (level, tag, key)) else {
                    continue;
                };
                let Some(values) = entry.as_mut() else {
                    continue;
                };
                if !values.contains_key(value) {
                    if values.len() >= TAG_VALUES {
                        *entry = None;
                        continue;
                    }
                    values.insert(value.to_owned(), Default::default());
                }
                let Some((seen, keys)) = values.get_mut(value) else {
                    continue;
                };
                *seen += 1;
                for k in &found[starts[i]..starts[i + 1]] {
                    if keys.len() < KEYS && !keys.contains(k) {
                        keys.push(*k);
                    }
                }
            }
        }
        self.keys = found;
        self.starts = starts;
    }

    /// The pair of these paths (level, tag, sub-document), added while
    /// fewer than [`PAIRS`] are kept.
    fn pair(&mut self, paths: &Paths, at: (PathId, PathId, PathId)) -> Option<&mut Pair> {
        let (level, tag, sub) = at;
        if self.by_tag.len() <= tag as usize {
            self.by_tag.resize(tag as usize + 1, Vec::new());
        }
        let listed = &mut self.by_tag[tag as usize];
        let place = match listed.iter().find(|(l, s, _)| *l == level && *s == sub) {
            Some((_, _, place)) => *place,
            None if self.pairs.len() >= PAIRS => return None,
            None => {
                let prefix = paths.name(level);
                let mut name = String::from(prefix);
                for part in [
                    key_of(prefix, paths.name(tag)),
                    key_of(prefix, paths.name(sub)),
                ] {
                    name.push('\0');
                    name.push_str(part);
                }
                self.pairs.push((name, sub, Some(BTreeMap::new())));
                listed.push((level, sub, self.pairs.len() - 1));
                self.pairs.len() - 1
            }
        };
        self.pairs.get_mut(place).map(|(_, _, pair)| pair)
    }

    /// The pairs whose tag decides the shape: at least two values, seen on
    /// average at least twice each, whose key sets are not all the same.
    pub(super) fn audit(&self, collection: &str, paths: &Paths) -> Vec<PolymorphicAudit> {
        let mut pairs: Vec<&(String, PathId, Pair)> = self.pairs.iter().collect();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        pairs
            .into_iter()
            .filter_map(|(at, sub, values)| {
                // The keys named, in key order.
                let named = |keys: &[PathId]| -> BTreeSet<String> {
                    keys.iter()
                        .map(|k| key_of(paths.name(*sub), paths.name(*k)))
                        .map(str::to_owned)
                        .collect()
                };
                let values: BTreeMap<&String, (u64, BTreeSet<String>)> = values
                    .as_ref()?
                    .iter()
                    .map(|(tag, (seen, keys))| (tag, (*seen, named(keys))))
                    .collect();
                let mut parts = at.split('\0');
                let (prefix, tag, key) = (parts.next()?, parts.next()?, parts.next()?);
                let seen: u64 = values.values().map(|(n, _)| n).sum();
                let mut shapes = values.values().map(|(_, keys)| keys);
                let first = shapes.next()?;
                let differ = shapes.any(|keys| keys != first);
                if values.len() < 2 || seen < 2 * values.len() as u64 || !differ {
                    return None;
                }
                let join = |k: &str| {
                    if prefix.is_empty() {
                        k.to_owned()
                    } else {
                        format!("{prefix}.{k}")
                    }
                };
                Some(PolymorphicAudit {
                    collection: collection.to_owned(),
                    tag: join(tag),
                    path: join(key),
                    variants: values
                        .iter()
                        .map(|(tag, (seen, keys))| Variant {
                            tag: (*tag).clone(),
                            seen: *seen,
                            keys: keys.iter().cloned().collect(),
                        })
                        .collect(),
                })
            })
            .collect()
    }
}
