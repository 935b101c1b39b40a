//! One collection read once: each document walked a single time, feeding
//! what every part of the audit keeps of it (array lengths with the
//! document's age, sizes, the values of fields that may be references, the
//! shapes of sub-documents beside a string field, the declared model's
//! checks). Everything kept is bounded, whatever the collection's size.

use std::collections::BTreeMap;

use bson::{RawBsonRef, RawDocument};

use super::arrays::Lengths;
use super::declared::Checked;
use super::elements::{key_ok, Elements, Value};
use super::encrypted::{Counts, EncryptedAudit};
use super::found::CollectionAudit;
use super::options::AuditOptions;
use super::paths::{Child, PathId, Paths, ROOT};
use super::polymorphic::{Placed, Shapes};
use super::references::{Candidate, Candidates, IdKinds, CANDIDATE_PATHS};
use super::sizes::Sizes;

/// No array or candidate kept at a path (yet).
const NONE: u32 = u32::MAX;

/// A path refused as a candidate ([`CANDIDATE_PATHS`] were kept before it).
const REFUSED: u32 = u32::MAX - 1;

/// What one path holds in the walk: the place of its array lengths in
/// [`Scan::arrays`] and of its candidate in [`Scan::kept`] ([`NONE`] until
/// the first array or value there).
#[derive(Debug, Clone, Copy)]
struct Slots {
    array: u32,
    candidate: u32,
    /// The place of its counts in [`Scan::encrypted`] ([`NONE`] until an
    /// encrypted value there).
    encrypted: u32,
    /// How many values other than null it held, in a document or a
    /// sub-document (not as an array's item).
    values: u64,
}

/// What one collection's read has kept so far.
pub(super) struct Scan {
    pub(super) name: String,
    pub(super) read: u64,
    /// Every path seen, named once.
    paths: Paths,
    /// By path id.
    slots: Vec<Slots>,
    /// The lengths of each array path, in the order first seen.
    arrays: Vec<(PathId, Lengths)>,
    /// Each candidate path's values, in the order first seen (at most
    /// [`CANDIDATE_PATHS`]); made into [`Scan::candidates`] once read.
    kept: Vec<(PathId, Candidate)>,
    /// The counts of each path holding encrypted values, in the order
    /// first seen.
    encrypted: Vec<(PathId, Counts)>,
    sizes: Sizes,
    /// Where a document's age is read when its `_id` is not an ObjectId:
    /// undecided (`None`) until the first such document, then the first
    /// top-level date field it holds, or none.
    date_field: Option<Option<String>>,
    /// Whether any document's age came from an ObjectId `_id`.
    aged_by_id: bool,
    pub(super) ids: IdKinds,
    pub(super) candidates: Candidates,
    pub(super) shapes: Shapes,
    pub(super) checked: Option<Checked>,
    /// The string fields and sub-documents of the levels being walked, one
    /// level above the other (each level's on top of its parent's, gone
    /// when it ends), placed in the document's bytes: what a string beside
    /// a sub-document tells [`Shapes`], with nothing copied.
    strings: Vec<Placed>,
    subs: Vec<Placed>,
}

/// Where `part`, a slice of the document `whole`, starts in it, and its
/// length.
fn place(whole: &[u8], part: &[u8]) -> Option<(u32, u32)> {
    let at = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    Some((u32::try_from(at).ok()?, u32::try_from(part.len()).ok()?))
}

impl Scan {
    pub(super) fn new(name: &str, checked: Option<Checked>) -> Self {
        Scan {
            name: name.to_owned(),
            read: 0,
            paths: Paths::default(),
            slots: Vec::new(),
            arrays: Vec::new(),
            kept: Vec::new(),
            encrypted: Vec::new(),
            sizes: Sizes::default(),
            date_field: None,
            aged_by_id: false,
            ids: IdKinds::default(),
            candidates: Candidates::default(),
            shapes: Shapes::default(),
            checked,
            strings: Vec::new(),
            subs: Vec::new(),
        }
    }

    /// Reads one document.
    pub(super) fn add(&mut self, raw: &RawDocument) {
        self.read += 1;
        self.sizes.add(raw, self.read);
        let id = raw.get("_id").ok().flatten();
        if let Some(id) = id {
            self.ids.add(id);
        }
        let created = self.created(raw, id);
        self.walk(raw, ROOT, raw.as_bytes(), created, id);
        if let Some(checked) = &mut self.checked {
            checked.add(raw);
        }
    }

    /// When the document was created, in milliseconds: its ObjectId `_id`'s
    /// time, or else the collection's date field.
    fn created(&mut self, raw: &RawDocument, id: Option<RawBsonRef<'_>>) -> Option<i64> {
        if let Some(RawBsonRef::ObjectId(oid)) = id {
            self.aged_by_id = true;
            return Some(oid.timestamp().timestamp_millis());
        }
        let field = self.date_field.get_or_insert_with(|| {
            raw.iter()
                .flatten()
                .find(|(_, v)| matches!(v, RawBsonRef::DateTime(_)))
                .map(|(k, _)| k.as_str().to_owned())
        });
        match raw.get(field.as_deref()?) {
            Ok(Some(RawBsonRef::DateTime(at))) => Some(at.timestamp_millis()),
            _ => None,
        }
    }

    /// The slots of path `id`.
    fn slots(&mut self, id: PathId) -> &mut Slots {
        let at = id as usize;
        if self.slots.len() <= at {
            let none = Slots {
                array: NONE,
                candidate: NONE,
                encrypted: NONE,
                values: 0,
            };
            self.slots.resize(self.paths.len().max(at + 1), none);
        }
        &mut self.slots[at]
    }

    /// The candidate at path `id`: kept while fewer than
    /// [`CANDIDATE_PATHS`] are, refused for good once they are.
    fn candidate(&mut self, id: PathId) -> Option<&mut Candidate> {
        let kept = self.kept.len();
        let slots = self.slots(id);
        if slots.candidate == NONE {
            slots.candidate = if kept < CANDIDATE_PATHS {
                kept as u32
            } else {
                REFUSED
            };
            if slots.candidate != REFUSED {
                self.kept.push((id, Candidate::default()));
            }
        }
        let at = self.slots[id as usize].candidate;
        self.kept.get_mut(at as usize).map(|(_, c)| c)
    }

    /// The encrypted values' counts at path `id`.
    fn encrypted(&mut self, id: PathId) -> &mut Counts {
        let count = self.encrypted.len();
        let slots = self.slots(id);
        if slots.encrypted == NONE {
            slots.encrypted = count as u32;
            self.encrypted.push((id, Counts::default()));
        }
        let at = self.slots[id as usize].encrypted as usize;
        &mut self.encrypted[at].1
    }

    /// The lengths of the array path `id`.
    fn lengths(&mut self, id: PathId) -> &mut Lengths {
        let count = self.arrays.len();
        let slots = self.slots(id);
        if slots.array == NONE {
            slots.array = count as u32;
            self.arrays.push((id, Lengths::default()));
        }
        let at = self.slots[id as usize].array as usize;
        &mut self.arrays[at].1
    }

    /// Walks `doc` (the document, or a sub-document at path `at`), once:
    /// each field's path found by its parent's and its key, never named;
    /// `whole` is the document `doc` is part of.
    fn walk(
        &mut self,
        doc: &RawDocument,
        at: PathId,
        whole: &[u8],
        created: Option<i64>,
        own_id: Option<RawBsonRef<'_>>,
    ) {
        let top = self.paths.name(at).is_empty();
        let (strings, subs) = (self.strings.len(), self.subs.len());
        for (n, element) in Elements::of(doc).enumerate() {
            let (key, value) = (element.key, element.value());
            // A value that does not parse is left out, as bson's own
            // iterator leaves it.
            let Some(value) = value else {
                if key_ok(key) {
                    continue;
                }
                break;
            };
            if top && key == b"_id" {
                continue;
            }
            let path = match self.paths.child(at, key, n) {
                Child::At(path) => path,
                Child::Past => continue,
                Child::NotUtf8 => break,
            };
            if !matches!(value, Value::Null) {
                self.slots(path).values += 1;
            }
            match value {
                Value::Array(array) => {
                    let mut length = 0;
                    for element in Elements::of(array) {
                        let (key, item) = (element.key, element.value());
                        if !key_ok(key) {
                            break;
                        }
                        let Some(item) = item else {
                            continue;
                        };
                        length += 1;
                        let scalar = match item {
                            Value::Document(sub) => {
                                self.walk(sub, path, whole, created, None);
                                continue;
                            }
                            Value::String(text) => Some(RawBsonRef::String(text)),
                            Value::Id(id) => Some(id),
                            Value::Array(_) | Value::Encrypted(_) | Value::Null | Value::Other => {
                                None
                            }
                        };
                        if let Some(candidate) = self.candidate(path) {
                            candidate.add(scalar, true);
                            if let (true, Some(own)) = (top, own_id) {
                                candidate.link(own, scalar);
                            }
                        }
                    }
                    let seed = self.read;
                    self.lengths(path).add(length, created, seed);
                }
                Value::Document(sub) => {
                    if let Some((offset, len)) = place(whole, sub.as_bytes()) {
                        self.subs.push((path, offset, len));
                    }
                    self.walk(sub, path, whole, created, None);
                }
                Value::String(text) => {
                    if let Some((offset, len)) = place(whole, text.as_bytes()) {
                        self.strings.push((path, offset, len));
                    }
                    if let Some(candidate) = self.candidate(path) {
                        candidate.add(Some(RawBsonRef::String(text)), false);
                    }
                }
                Value::Id(id) => {
                    if let Some(candidate) = self.candidate(path) {
                        candidate.add(Some(id), false);
                    }
                }
                Value::Encrypted(deterministic) => {
                    let counts = self.encrypted(path);
                    if deterministic {
                        counts.deterministic += 1;
                    } else {
                        counts.random += 1;
                    }
                }
                Value::Null | Value::Other => {
                    if let Some(candidate) = self.candidate(path) {
                        candidate.add(None, false);
                    }
                }
            }
        }
        if self.strings.len() > strings && self.subs.len() > subs {
            self.shapes.add(
                &mut self.paths,
                at,
                &self.strings[strings..],
                &self.subs[subs..],
                whole,
            );
        }
        self.strings.truncate(strings);
        self.subs.truncate(subs);
    }

    /// The candidate paths are named here too, into [`Scan::candidates`].
    pub(super) fn audit(&mut self, options: &AuditOptions) -> CollectionAudit {
        // An ObjectId `_id`'s time wins over a date field, as in `created`.
        let age_from = match (&self.date_field, self.aged_by_id) {
            (Some(Some(field)), false) => Some(field.as_str()),
            _ => None,
        };
        // In path order, as the names sort.
        let mut arrays: Vec<(String, Lengths)> = std::mem::take(&mut self.arrays)
            .into_iter()
            .map(|(id, lengths)| (self.paths.name(id).to_owned(), lengths))
            .collect();
        arrays.sort_by(|a, b| a.0.cmp(&b.0));
        let arrays = arrays
            .into_iter()
            .map(|(path, lengths)| lengths.array(&self.name, path, options.long, age_from))
            .collect();
        let kept: BTreeMap<String, Candidate> = std::mem::take(&mut self.kept)
            .into_iter()
            .map(|(id, candidate)| (self.paths.name(id).to_owned(), candidate))
            .collect();
        self.candidates = Candidates::new(kept);
        let mut encrypted: Vec<EncryptedAudit> = std::mem::take(&mut self.encrypted)
            .into_iter()
            .map(|(id, counts)| {
                let sealed = counts.deterministic + counts.random;
                EncryptedAudit {
                    collection: self.name.clone(),
                    path: self.paths.name(id).to_owned(),
                    deterministic: counts.deterministic,
                    random: counts.random,
                    clear: self.slots[id as usize].values.saturating_sub(sealed),
                }
            })
            .collect();
        encrypted.sort_by(|a, b| a.path.cmp(&b.path));
        CollectionAudit {
            name: self.name.clone(),
            read: self.read,
            arrays,
            sizes: std::mem::take(&mut self.sizes).audit(),
            references: Vec::new(),
            polymorphic: self.shapes.audit(&self.name, &self.paths),
            encrypted,
            declared: None,
        }
    }
}
