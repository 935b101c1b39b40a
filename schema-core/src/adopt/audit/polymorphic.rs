//! Polymorphic sub-documents: a string field beside a sub-document whose
//! value decides the sub-document's keys (seed 004's `type` deciding
//! `details`). Reported as information, so that a model can declare a
//! tagged enum; not a finding.

use std::collections::{BTreeMap, BTreeSet};

use bson::RawDocument;
use serde::Serialize;

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
/// the keys; `None` once the tag has shown more than [`TAG_VALUES`]
/// values.
type Pair = Option<BTreeMap<String, (u64, BTreeSet<String>)>>;

/// The pairs of one collection, by `prefix NUL tag NUL sub-document key`
/// (a stored name holds no NUL).
#[derive(Debug, Default)]
pub(super) struct Shapes {
    pairs: BTreeMap<String, Pair>,
    /// The key being looked up, reused.
    at: String,
}

impl Shapes {
    /// One level at `prefix` holding these string fields and sub-documents.
    pub(super) fn add(
        &mut self,
        prefix: &str,
        strings: &[(&str, &str)],
        subs: &[(&str, &RawDocument)],
    ) {
        for (tag, value) in strings {
            for (key, sub) in subs {
                self.at.clear();
                for part in [prefix, "\0", tag, "\0", key] {
                    self.at.push_str(part);
                }
                if !self.pairs.contains_key(self.at.as_str()) {
                    if self.pairs.len() >= PAIRS {
                        continue;
                    }
                    self.pairs.insert(self.at.clone(), Some(BTreeMap::new()));
                }
                let Some(entry) = self.pairs.get_mut(self.at.as_str()) else {
                    continue;
                };
                let Some(values) = entry.as_mut() else {
                    continue;
                };
                if !values.contains_key(*value) && values.len() >= TAG_VALUES {
                    *entry = None;
                    continue;
                }
                let (seen, keys) = values.entry((*value).to_owned()).or_default();
                *seen += 1;
                for k in sub.iter().flatten().map(|(k, _)| k) {
                    if keys.len() < KEYS || keys.contains(k.as_str()) {
                        keys.insert(k.as_str().to_owned());
                    }
                }
            }
        }
    }

    /// The pairs whose tag decides the shape: at least two values, seen on
    /// average at least twice each, whose key sets are not all the same.
    pub(super) fn audit(&self, collection: &str) -> Vec<PolymorphicAudit> {
        self.pairs
            .iter()
            .filter_map(|(at, values)| {
                let values = values.as_ref()?;
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
                            tag: tag.clone(),
                            seen: *seen,
                            keys: keys.iter().cloned().collect(),
                        })
                        .collect(),
                })
            })
            .collect()
    }
}
