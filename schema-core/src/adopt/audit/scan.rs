//! One collection read once: each document walked a single time, feeding
//! what every part of the audit keeps of it (array lengths with the
//! document's age, sizes, the values of fields that may be references, the
//! shapes of sub-documents beside a string field, the declared model's
//! checks). Everything kept is bounded, whatever the collection's size.

use std::collections::BTreeMap;

use bson::{RawBsonRef, RawDocument};

use super::arrays::Lengths;
use super::declared::Checked;
use super::found::CollectionAudit;
use super::options::AuditOptions;
use super::polymorphic::Shapes;
use super::references::{Candidates, IdKinds};
use super::sizes::Sizes;

/// What one collection's read has kept so far.
pub(super) struct Scan {
    pub(super) name: String,
    pub(super) read: u64,
    arrays: BTreeMap<String, Lengths>,
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
}

/// One level of a document: its string fields and its sub-documents, for
/// the shapes a string decides.
type Level<'a> = (Vec<(&'a str, &'a str)>, Vec<(&'a str, &'a RawDocument)>);

impl Scan {
    pub(super) fn new(name: &str, checked: Option<Checked>) -> Self {
        Scan {
            name: name.to_owned(),
            read: 0,
            arrays: BTreeMap::new(),
            sizes: Sizes::default(),
            date_field: None,
            aged_by_id: false,
            ids: IdKinds::default(),
            candidates: Candidates::default(),
            shapes: Shapes::default(),
            checked,
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
        self.walk(raw, &mut String::new(), created, id);
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

    /// Walks `doc` (the document, or a sub-document at `path`); `path` is
    /// one buffer for the whole walk, each key pushed and truncated away.
    fn walk(
        &mut self,
        doc: &RawDocument,
        path: &mut String,
        created: Option<i64>,
        own_id: Option<RawBsonRef<'_>>,
    ) {
        let top = path.is_empty();
        let prefix = path.len();
        let mut level: Level<'_> = (Vec::new(), Vec::new());
        for (key, value) in doc.iter().flatten() {
            let key = key.as_str();
            if top && key == "_id" {
                continue;
            }
            if !top {
                path.push('.');
            }
            path.push_str(key);
            match value {
                RawBsonRef::Array(array) => {
                    let mut length = 0;
                    for item in array.into_iter().flatten() {
                        length += 1;
                        match item {
                            RawBsonRef::Document(sub) => self.walk(sub, path, created, None),
                            scalar => {
                                self.candidates.add(path, scalar, true);
                                if let (true, Some(own)) = (top, own_id) {
                                    self.candidates.link(path, own, scalar);
                                }
                            }
                        }
                    }
                    let lengths = match self.arrays.get_mut(path.as_str()) {
                        Some(lengths) => lengths,
                        None => self.arrays.entry(path.clone()).or_default(),
                    };
                    lengths.add(length, created, self.read);
                }
                RawBsonRef::Document(sub) => {
                    level.1.push((key, sub));
                    self.walk(sub, path, created, None);
                }
                RawBsonRef::String(text) => {
                    level.0.push((key, text));
                    self.candidates.add(path, value, false);
                }
                scalar => self.candidates.add(path, scalar, false),
            }
            path.truncate(prefix);
        }
        if !level.0.is_empty() && !level.1.is_empty() {
            self.shapes.add(&path[..prefix], &level.0, &level.1);
        }
    }

    /// What was kept, as the collection's audit (its references, shapes
    /// and declared checks filled in later, by the driver).
    pub(super) fn audit(&mut self, options: &AuditOptions) -> CollectionAudit {
        // An ObjectId `_id`'s time wins over a date field, as in `created`.
        let age_from = match (&self.date_field, self.aged_by_id) {
            (Some(Some(field)), false) => Some(field.as_str()),
            _ => None,
        };
        let arrays = std::mem::take(&mut self.arrays)
            .into_iter()
            .map(|(path, lengths)| lengths.array(&self.name, path, options.long, age_from))
            .collect();
        CollectionAudit {
            name: self.name.clone(),
            read: self.read,
            arrays,
            sizes: std::mem::take(&mut self.sizes).audit(),
            references: Vec::new(),
            polymorphic: self.shapes.audit(&self.name),
            declared: None,
        }
    }
}
