//! The type walk: what every stored path of a collection held, over the
//! documents read, in memory that does not grow with the collection (per
//! path, counts by BSON type, the arrays' lengths in a bounded reservoir,
//! at most [`MAX_KEYS`] keys per sub-document, [`MAX_VALUES`] distinct
//! values per field for the tags of polymorphic sub-documents).

use std::collections::{BTreeMap, BTreeSet};

use bson::{RawBsonRef, RawDocument};

/// The most keys recorded per sub-document: past it (a document used as a
/// map, keyed by ids or dates), new keys are counted, not recorded.
pub(super) const MAX_KEYS: usize = 256;

/// The most distinct values kept per field: the sample of ids a reference
/// is checked with, and the values a tag may take.
pub(super) const MAX_VALUES: usize = 32;

/// How many lengths of one array path are kept for its percentiles.
const RESERVOIR: usize = 10_000;

/// A BSON type as the walk counts it (null apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    Int32,
    Int64,
    Double,
    Decimal,
    String,
    Bool,
    Date,
    ObjectId,
    Binary,
    /// A value encrypted on the client (BSON binary subtype 6, the FLE1
    /// form): how, and the BSON type byte of the value before it.
    Encrypted {
        deterministic: bool,
        original: u8,
    },
    Timestamp,
    Regex,
    Document,
    Array,
    /// A type with no Rust type of its own (symbol, code, min/max key,
    /// undefined, DB pointer), by its BSON name.
    Other(&'static str),
}

impl Kind {
    fn of(value: &RawBsonRef<'_>) -> Option<Kind> {
        Some(match value {
            RawBsonRef::Null => return None,
            RawBsonRef::Int32(_) => Kind::Int32,
            RawBsonRef::Int64(_) => Kind::Int64,
            RawBsonRef::Double(_) => Kind::Double,
            RawBsonRef::Decimal128(_) => Kind::Decimal,
            RawBsonRef::String(_) => Kind::String,
            RawBsonRef::Boolean(_) => Kind::Bool,
            RawBsonRef::DateTime(_) => Kind::Date,
            RawBsonRef::ObjectId(_) => Kind::ObjectId,
            RawBsonRef::Binary(b) => encrypted(b.subtype, b.bytes).unwrap_or(Kind::Binary),
            RawBsonRef::Timestamp(_) => Kind::Timestamp,
            RawBsonRef::RegularExpression(_) => Kind::Regex,
            RawBsonRef::Document(_) => Kind::Document,
            RawBsonRef::Array(_) => Kind::Array,
            RawBsonRef::Symbol(_) => Kind::Other("symbol"),
            RawBsonRef::JavaScriptCode(_) => Kind::Other("javascript"),
            RawBsonRef::JavaScriptCodeWithScope(_) => Kind::Other("javascriptWithScope"),
            RawBsonRef::MaxKey => Kind::Other("maxKey"),
            RawBsonRef::MinKey => Kind::Other("minKey"),
            RawBsonRef::Undefined => Kind::Other("undefined"),
            RawBsonRef::DbPointer(_) => Kind::Other("dbPointer"),
        })
    }

    /// The server's name of the type (`$type`'s alias).
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::Int32 => "int",
            Kind::Int64 => "long",
            Kind::Double => "double",
            Kind::Decimal => "decimal",
            Kind::String => "string",
            Kind::Bool => "bool",
            Kind::Date => "date",
            Kind::ObjectId => "objectId",
            Kind::Binary | Kind::Encrypted { .. } => "binData",
            Kind::Timestamp => "timestamp",
            Kind::Regex => "regex",
            Kind::Document => "object",
            Kind::Array => "array",
            Kind::Other(name) => name,
        }
    }
}

/// A client-side encrypted value (binary subtype 6 in the FLE1 form: a
/// byte saying deterministic (1) or random (2), the data key's 16-byte
/// UUID, the original value's BSON type byte, then the ciphertext).
pub(crate) fn encrypted(subtype: bson::spec::BinarySubtype, bytes: &[u8]) -> Option<Kind> {
    if subtype != bson::spec::BinarySubtype::Encrypted || bytes.len() < 18 {
        return None;
    }
    let deterministic = match bytes[0] {
        1 => true,
        2 => false,
        _ => return None,
    };
    Some(Kind::Encrypted {
        deterministic,
        original: bytes[17],
    })
}

/// What one path held: a field's values, or an array's items.
#[derive(Debug, Default)]
pub(super) struct Node {
    /// How many times it was present (null included).
    pub(super) present: u64,
    /// How many of those were null.
    pub(super) nulls: u64,
    /// The other values, by type.
    pub(super) kinds: BTreeMap<Kind, u64>,
    /// The sub-documents' fields, when sub-documents were seen.
    pub(super) object: Option<Box<Object>>,
    /// The arrays' items and lengths, when arrays were seen.
    pub(super) array: Option<Box<Array>>,
    /// Its first distinct ids and strings (at most [`MAX_VALUES`]), and
    /// whether there were more.
    pub(super) values: Values,
}

/// The items of the arrays of one path and their lengths.
#[derive(Debug, Default)]
pub(super) struct Array {
    pub(super) items: Node,
    pub(super) lengths: Lengths,
}

/// The fields of the sub-documents of one path (or of a collection's
/// documents).
#[derive(Debug, Default)]
pub(super) struct Object {
    /// How many were read.
    pub(super) count: u64,
    /// Each key seen, by stored name.
    pub(super) fields: BTreeMap<String, Node>,
    /// Keys past [`MAX_KEYS`], counted only.
    pub(super) unrecorded: u64,
    /// The same sub-documents split by the value of a tag, when the path is
    /// one of the walk's splits.
    pub(super) variants: Option<Box<Variants>>,
}

/// Sub-documents split by their tag's value.
#[derive(Debug, Default)]
pub(super) struct Variants {
    /// The fields seen under each value.
    pub(super) by_value: BTreeMap<String, Object>,
    /// How many had no string tag, or one past [`MAX_VALUES`] values.
    pub(super) unsplit: u64,
}

/// Where the tag that decides a sub-document's shape is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tag {
    /// A key of the sub-document itself (`{details: {type: "book", ..}}`).
    Inside(String),
    /// A key beside it, in the document holding it (`{type: "book",
    /// details: {..}}`).
    Beside(String),
}

/// The sub-document paths to split by a tag, by stored dotted path.
pub(super) type Splits = BTreeMap<String, Tag>;

/// A field's first distinct scalar values (ids and strings).
#[derive(Debug, Default)]
pub(super) struct Values {
    pub(super) kept: BTreeSet<ValueKey>,
    pub(super) more: bool,
}

/// An id or a string, ordered (for [`Values`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum ValueKey {
    ObjectId(bson::oid::ObjectId),
    String(String),
}

impl Values {
    fn add(&mut self, value: &RawBsonRef<'_>) {
        let key = match value {
            RawBsonRef::ObjectId(id) => ValueKey::ObjectId(*id),
            RawBsonRef::String(s) if s.len() <= 200 => ValueKey::String((*s).to_owned()),
            _ => return,
        };
        if self.kept.len() < MAX_VALUES || self.kept.contains(&key) {
            self.kept.insert(key);
        } else {
            self.more = true;
        }
    }

    /// The distinct strings, when there were at most [`MAX_VALUES`] of
    /// them and nothing else.
    pub(super) fn few_strings(&self) -> Option<Vec<&str>> {
        if self.more {
            return None;
        }
        self.kept
            .iter()
            .map(|v| match v {
                ValueKey::String(s) => Some(s.as_str()),
                ValueKey::ObjectId(_) => None,
            })
            .collect()
    }
}

impl Object {
    /// Records one document (or sub-document) at `path`.
    pub(super) fn add(&mut self, doc: &RawDocument, path: &str, splits: &Splits) {
        self.count += 1;
        for (key, value) in doc.iter().flatten() {
            let key = key.as_str();
            let len = self.fields.len();
            let node = match self.fields.get_mut(key) {
                Some(node) => node,
                None if len < MAX_KEYS => self.fields.entry(key.to_owned()).or_default(),
                None => {
                    self.unrecorded += 1;
                    continue;
                }
            };
            let child = if path.is_empty() {
                key.to_owned()
            } else {
                format!("{path}.{key}")
            };
            let beside = match (splits.get(&child), &value) {
                (Some(Tag::Beside(tag)), RawBsonRef::Document(_)) => {
                    Some(doc.get_str(tag).ok().map(str::to_owned))
                }
                _ => None,
            };
            node.add(value, &child, splits, beside);
        }
    }

    /// Records `doc` under its tag's value too (`tag` is `None` when it has
    /// none).
    fn add_variant(&mut self, doc: &RawDocument, path: &str, splits: &Splits, tag: Option<String>) {
        let variants = self.variants.get_or_insert_with(Box::default);
        match tag {
            Some(value)
                if variants.by_value.len() < MAX_VALUES
                    || variants.by_value.contains_key(&value) =>
            {
                variants
                    .by_value
                    .entry(value)
                    .or_default()
                    .add(doc, path, splits);
            }
            _ => variants.unsplit += 1,
        }
    }
}

impl Node {
    /// Records one value at `path`; `beside` is the value of the tag stored
    /// beside it when `path` is split that way.
    fn add(
        &mut self,
        value: RawBsonRef<'_>,
        path: &str,
        splits: &Splits,
        beside: Option<Option<String>>,
    ) {
        self.present += 1;
        let Some(kind) = Kind::of(&value) else {
            self.nulls += 1;
            return;
        };
        *self.kinds.entry(kind).or_default() += 1;
        self.values.add(&value);
        match value {
            RawBsonRef::Document(doc) => {
                let object = self.object.get_or_insert_with(Box::default);
                object.add(doc, path, splits);
                let tag = match (splits.get(path), beside) {
                    (Some(Tag::Inside(tag)), _) => Some(doc.get_str(tag).ok().map(str::to_owned)),
                    (Some(Tag::Beside(_)), beside) => beside,
                    (None, _) => None,
                };
                if let Some(tag) = tag {
                    object.add_variant(doc, path, splits, tag);
                }
            }
            RawBsonRef::Array(items) => {
                let array = self.array.get_or_insert_with(Box::default);
                let mut length = 0;
                for item in items.into_iter().flatten() {
                    length += 1;
                    array.items.add(item, path, splits, None);
                }
                let seen = array.lengths.seen;
                array.lengths.add(length, seen);
            }
            _ => {}
        }
    }

    /// The non-null types seen.
    pub(super) fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        self.kinds.keys().copied()
    }
}

/// The lengths of one array path: the largest, how many, and a reservoir of
/// at most [`RESERVOIR`] of them (each kept with the same chance).
#[derive(Debug, Default)]
pub(super) struct Lengths {
    pub(super) max: u64,
    pub(super) seen: u64,
    kept: Vec<u64>,
}

impl Lengths {
    fn add(&mut self, length: u64, seed: u64) {
        self.max = self.max.max(length);
        self.seen += 1;
        if self.kept.len() < RESERVOIR {
            self.kept.push(length);
            return;
        }
        // Algorithm R, with a hash of the count for its random index (the
        // same lengths give the same percentiles run after run).
        let mut x = self.seen ^ seed.rotate_left(32) ^ 0x9E37_79B9_7F4A_7C15;
        x ^= x >> 33;
        x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        x ^= x >> 33;
        if let Ok(at) = usize::try_from(x % self.seen) {
            if at < RESERVOIR {
                self.kept[at] = length;
            }
        }
    }

    /// The `p`th percentile of the kept lengths, by nearest rank.
    pub(super) fn percentile(&mut self, p: usize) -> u64 {
        self.kept.sort_unstable();
        let rank = (self.kept.len() * p).div_ceil(100);
        self.kept.get(rank.max(1) - 1).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{doc, RawDocumentBuf};

    fn walk(docs: &[bson::Document], splits: &Splits) -> Object {
        let mut root = Object::default();
        for d in docs {
            let raw = RawDocumentBuf::try_from(d).unwrap();
            root.add(&raw, "", splits);
        }
        root
    }

    #[test]
    fn types_nulls_and_lengths_are_counted_per_path() {
        let root = walk(
            &[
                doc! { "n": 1, "tags": ["a", "b"], "p": { "x": 1 } },
                doc! { "n": 2_i64, "tags": [], "p": null },
                doc! { "n": null },
            ],
            &Splits::new(),
        );
        assert_eq!(root.count, 3);
        let n = &root.fields["n"];
        assert_eq!((n.present, n.nulls), (3, 1));
        assert_eq!(n.kinds().collect::<Vec<_>>(), [Kind::Int32, Kind::Int64]);
        let tags = root.fields["tags"].array.as_ref().unwrap();
        assert_eq!((tags.lengths.max, tags.lengths.seen), (2, 2));
        assert_eq!(tags.items.present, 2);
        assert_eq!(root.fields["p"].object.as_ref().unwrap().count, 1);
    }

    #[test]
    fn a_split_path_keeps_the_fields_of_each_tag_value() {
        let splits = Splits::from([("details".to_owned(), Tag::Beside("type".to_owned()))]);
        let root = walk(
            &[
                doc! { "type": "book", "details": { "isbn": "1" } },
                doc! { "type": "dvd", "details": { "director": "x" } },
                doc! { "details": { "isbn": "2" } },
            ],
            &splits,
        );
        let details = root.fields["details"].object.as_ref().unwrap();
        let variants = details.variants.as_ref().unwrap();
        assert_eq!(variants.unsplit, 1);
        let keys: Vec<(&str, Vec<&str>)> = variants
            .by_value
            .iter()
            .map(|(v, o)| (v.as_str(), o.fields.keys().map(String::as_str).collect()))
            .collect();
        assert_eq!(keys, [("book", vec!["isbn"]), ("dvd", vec!["director"])]);
    }

    #[test]
    fn keys_past_the_cap_are_counted_not_kept() {
        let mut wide = bson::Document::new();
        for i in 0..(MAX_KEYS + 10) {
            wide.insert(format!("k{i}"), 1);
        }
        let root = walk(&[wide], &Splits::new());
        assert_eq!(root.fields.len(), MAX_KEYS);
        assert_eq!(root.unrecorded, 10);
    }
}
