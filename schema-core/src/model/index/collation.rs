//! An index's collation: `#[document(index(keys(email = asc), unique,
//! collation(locale = "en", strength = 2)))]` makes a unique index that
//! compares strings case-insensitively, so `Ann@example.org` and
//! `ann@EXAMPLE.org` cannot both be stored.
//!
//! A query uses a collated index only when it carries the same collation
//! ([`Find::collation`](crate::query::Find::collation), and the same
//! `.collation(..)` on `count` and the filtered writes): the index guard
//! counts on a collated index only for a query with the same collation, and
//! on the other indexes only for a query without one. A query on its keys
//! without the collation needs another index, or is refused before it is
//! sent. Setup creates the index with
//! its collation, and the plan compares what the model declares with what
//! `listIndexes` returns: the server lists every option of a collation
//! (`caseLevel`, `alternate`, its ICU `version`...), of which only the
//! declared ones (`locale`, and `strength`, 3 when not given) are compared,
//! so an index setup created is never reported as drifted.

use std::fmt;

use mongodb::options::{Collation, CollationStrength};

/// The strength a collation has when none is given (tertiary: case and
/// accents both count).
const DEFAULT_STRENGTH: u32 = 3;

/// A collation as a model declares it, or the part of a listed one that is
/// compared with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexCollation {
    /// The ICU locale, e.g. `en`.
    pub locale: String,
    /// 1 (base letters only) to 5; `None`: the server's default, 3.
    pub strength: Option<u32>,
}

/// A collation in a model's constant tables (see
/// [`IndexDef`](crate::model::declared::IndexDef)).
#[derive(Debug, Clone, Copy)]
pub struct CollationDef {
    /// The ICU locale.
    pub locale: &'static str,
    /// 1 to 5, when given.
    pub strength: Option<u32>,
}

impl CollationDef {
    /// The collation it declares.
    pub fn to_collation(&self) -> IndexCollation {
        IndexCollation {
            locale: self.locale.to_owned(),
            strength: self.strength,
        }
    }
}

impl IndexCollation {
    /// A collation of `locale` at the server's default strength (3).
    pub fn new(locale: impl Into<String>) -> Self {
        IndexCollation {
            locale: locale.into(),
            strength: None,
        }
    }

    /// The same at `strength` (1: base letters only, 2: accents count too,
    /// 3: case too...).
    pub fn strength(mut self, strength: u32) -> Self {
        self.strength = Some(strength);
        self
    }

    /// The command form, `{locale, strength}` (for `explain`).
    pub(crate) fn to_document(&self) -> bson::Document {
        let mut doc = bson::doc! { "locale": self.locale.as_str() };
        if let Some(strength) = self.strength {
            doc.insert("strength", i32::try_from(strength).unwrap_or(i32::MAX));
        }
        doc
    }

    /// The driver's form, for `createIndexes` and queries.
    pub(crate) fn to_driver(&self) -> Collation {
        let strength = self
            .strength
            .and_then(|s| CollationStrength::try_from(s).ok());
        Collation::builder()
            .locale(self.locale.clone())
            .strength(strength)
            .build()
    }

    /// The compared part of a collation `listIndexes` returned.
    pub(crate) fn from_driver(listed: &Collation) -> Self {
        IndexCollation {
            locale: listed.locale.clone(),
            strength: listed.strength.map(u32::from),
        }
    }

    fn strength_or_default(&self) -> u32 {
        self.strength.unwrap_or(DEFAULT_STRENGTH)
    }
}

/// Whether two indexes' collations are the same as far as a model can say
/// (locale and strength, a missing strength being the default): an index
/// with one and an index without one differ.
pub(crate) fn same(a: Option<&IndexCollation>, b: Option<&IndexCollation>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.locale == b.locale && a.strength_or_default() == b.strength_or_default()
        }
        _ => false,
    }
}

impl fmt::Display for IndexCollation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "collation={{locale: {}, strength: {}}}",
            self.locale,
            self.strength_or_default()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(locale: &str, strength: Option<u32>) -> IndexCollation {
        IndexCollation {
            locale: locale.into(),
            strength,
        }
    }

    #[test]
    fn a_missing_strength_is_the_default_and_locales_must_match() {
        assert!(same(Some(&c("en", None)), Some(&c("en", Some(3)))));
        assert!(!same(Some(&c("en", Some(2))), Some(&c("en", Some(3)))));
        assert!(!same(Some(&c("en", Some(2))), Some(&c("fr", Some(2)))));
        assert!(!same(Some(&c("en", Some(2))), None));
        assert!(same(None, None));
    }

    #[test]
    fn the_driver_form_keeps_locale_and_strength() {
        let declared = c("en", Some(2));
        let driver = declared.to_driver();
        assert_eq!(IndexCollation::from_driver(&driver), declared);
        assert_eq!(declared.to_string(), "collation={locale: en, strength: 2}");
    }
}
