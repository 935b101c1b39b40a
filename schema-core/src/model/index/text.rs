//! Text indexes: `#[document(index(keys(title = "text", body = "text"),
//! weights(title = 10), default_language = "english"))]`, the one index a
//! collection may have for `$text` searches.
//!
//! The server stores a text index under other keys than the declared ones
//! (`{_fts: "text", _ftsx: 1}`, the fields in `weights`, each field's weight
//! 1 unless given, the default language `english` and the language field
//! `language` unless given). The plan compares both sides in that one shape
//! ([`TextShape`]): the fields by name (their order does not matter to a
//! text index), their weights, the default language and the language
//! field, so an index setup created is never reported as drifted.
//!
//! A `$text` query needs the text index: the index guard lets it through
//! only on a model that declares one, and refuses it otherwise (the server
//! would fail it).

use std::collections::BTreeMap;
use std::fmt;

use bson::{Bson, Document};

/// The weight of a field a text index does not weigh.
const DEFAULT_WEIGHT: u32 = 1;
/// The default language of a text index that names none.
const DEFAULT_LANGUAGE: &str = "english";
/// The field a document names its own language in, unless told otherwise.
const LANGUAGE_FIELD: &str = "language";

/// The weights and default language a model declares on a text index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextOptions {
    /// The weighed fields (stored names), each `1` unless given here.
    pub weights: Vec<(String, u32)>,
    /// `default_language`; the server's `english` when `None`.
    pub default_language: Option<String>,
}

/// [`TextOptions`] in a model's constant tables.
#[derive(Debug, Clone, Copy)]
pub struct TextDef {
    /// The weighed fields (stored names) and their weights.
    pub weights: &'static [(&'static str, u32)],
    /// `default_language`, when given.
    pub default_language: Option<&'static str>,
}

impl TextDef {
    /// The options it declares.
    pub fn to_options(&self) -> TextOptions {
        TextOptions {
            weights: self
                .weights
                .iter()
                .map(|(f, w)| ((*f).to_owned(), *w))
                .collect(),
            default_language: self.default_language.map(str::to_owned),
        }
    }
}

/// A text index in the one shape the plan compares: the fields by name,
/// each with its weight, the default language and the language field.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TextShape {
    /// Every field of the index (stored names, sorted) and its weight.
    pub weights: BTreeMap<String, u32>,
    /// The default language.
    pub default_language: String,
    /// The field a document names its language in.
    pub language_override: String,
}

impl TextShape {
    /// The shape of a declared text index on `fields`.
    pub(crate) fn declared<'a>(
        fields: impl IntoIterator<Item = &'a str>,
        options: Option<&TextOptions>,
    ) -> Self {
        let mut weights: BTreeMap<String, u32> = fields
            .into_iter()
            .map(|f| (f.to_owned(), DEFAULT_WEIGHT))
            .collect();
        if let Some(options) = options {
            for (field, weight) in &options.weights {
                weights.insert(field.clone(), *weight);
            }
        }
        TextShape {
            weights,
            default_language: options
                .and_then(|o| o.default_language.clone())
                .unwrap_or_else(|| DEFAULT_LANGUAGE.to_owned()),
            language_override: LANGUAGE_FIELD.to_owned(),
        }
    }

    /// The shape of a text index as `listIndexes` lists it, `None` for
    /// another index (one whose keys are not `_fts`/`_ftsx`).
    pub(crate) fn listed(
        keys: &Document,
        options: &mongodb::options::IndexOptions,
    ) -> Option<Self> {
        if !keys.contains_key("_fts") {
            return None;
        }
        let weights = options
            .weights
            .as_ref()
            .map(|w| {
                w.iter()
                    .map(|(field, weight)| (field.clone(), weight_of(weight)))
                    .collect()
            })
            .unwrap_or_default();
        Some(TextShape {
            weights,
            default_language: options
                .default_language
                .clone()
                .unwrap_or_else(|| DEFAULT_LANGUAGE.to_owned()),
            language_override: options
                .language_override
                .clone()
                .unwrap_or_else(|| LANGUAGE_FIELD.to_owned()),
        })
    }

    /// The key document a declared text index is compared by: each field
    /// `"text"`, by name.
    pub(crate) fn key_document(&self) -> Document {
        self.weights
            .keys()
            .map(|f| (f.clone(), Bson::String(TEXT.to_owned())))
            .collect()
    }
}

impl fmt::Display for TextShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let weights: Vec<String> = self
            .weights
            .iter()
            .map(|(field, w)| format!("{field}: {w}"))
            .collect();
        write!(
            f,
            "weights={{{}}} default_language={}",
            weights.join(", "),
            self.default_language
        )?;
        if self.language_override != LANGUAGE_FIELD {
            write!(f, " language_override={}", self.language_override)?;
        }
        Ok(())
    }
}

/// The value a text key holds in a key document.
pub(crate) const TEXT: &str = "text";

/// A listed weight, whatever numeric type holds it.
fn weight_of(value: &Bson) -> u32 {
    match value {
        Bson::Int32(n) => u32::try_from(*n).unwrap_or(0),
        Bson::Int64(n) => u32::try_from(*n).unwrap_or(0),
        Bson::Double(n) if *n >= 0.0 && *n <= f64::from(u32::MAX) => *n as u32,
        _ => 0,
    }
}

/// The weights as `createIndexes` takes them (every field, `1` unless
/// given), and the default language.
pub(crate) fn index_options(shape: &TextShape) -> (Document, String) {
    let weights = shape
        .weights
        .iter()
        .map(|(f, w)| {
            (
                f.clone(),
                Bson::Int32(i32::try_from(*w).unwrap_or(i32::MAX)),
            )
        })
        .collect();
    (weights, shape.default_language.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    /// What `listIndexes` returns for `createIndex({title: "text", body:
    /// "text"}, {weights: {title: 10}})`, as the MongoDB manual shows a
    /// text index (`v`, `key: {_fts, _ftsx}`, `weights`, `default_language`,
    /// `language_override`, `textIndexVersion`).
    fn listed() -> mongodb::IndexModel {
        bson::deserialize_from_document(doc! {
            "v": 2,
            "key": { "_fts": "text", "_ftsx": 1 },
            "name": "title_text_body_text",
            "weights": { "body": 1, "title": 10 },
            "default_language": "english",
            "language_override": "language",
            "textIndexVersion": 3,
        })
        .unwrap()
    }

    #[test]
    fn a_listed_text_index_has_the_declared_shape() {
        let model = listed();
        let shape = TextShape::listed(&model.keys, model.options.as_ref().unwrap()).unwrap();
        let options = TextOptions {
            weights: vec![("title".into(), 10)],
            default_language: None,
        };
        // Declared in another order: a text index's fields have none.
        let declared = TextShape::declared(["body", "title"], Some(&options));
        assert_eq!(shape, declared);
        assert_eq!(
            declared.key_document(),
            doc! { "body": "text", "title": "text" }
        );
        let other_weight = TextShape::declared(["title", "body"], None);
        assert_ne!(shape, other_weight);
        let spanish = TextOptions {
            default_language: Some("spanish".into()),
            ..options
        };
        assert_ne!(
            shape,
            TextShape::declared(["title", "body"], Some(&spanish))
        );
        assert_eq!(
            shape.to_string(),
            "weights={body: 1, title: 10} default_language=english"
        );
    }

    #[test]
    fn an_ordered_index_is_no_text_index() {
        let model: mongodb::IndexModel = bson::deserialize_from_document(
            doc! { "v": 2, "key": { "title": 1 }, "name": "title_1" },
        )
        .unwrap();
        let options = model.options.clone().unwrap_or_default();
        assert!(TextShape::listed(&model.keys, &options).is_none());
    }
}
