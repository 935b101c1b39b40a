//! Indexes as the server lists them ([`ServerIndex`]), and the comparison
//! of server and model shapes: key order is significant, numeric types are
//! not (`1`, `1i64`, `1.0` are one direction), and an option left at its
//! default (`unique: false`, `sparse: false`) equals its absence.

use std::fmt;
use std::time::Duration;

use bson::{Bson, Document};

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
    /// The collation's locale and strength (see `collation`).
    pub collation: Option<IndexCollation>,
    /// A text index's fields, weights and languages (see
    /// `text_index`); its `keys` are then its fields,
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
