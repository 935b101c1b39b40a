//! The tag of a tagged enum held by a model: [`TagField`], whose values
//! ([`Tag`]) are the variants' stored names, checked when a filter names one.

use bson::Bson;

use super::compare::Compare;
use super::{Field, Scope};
use crate::error::Result;
use crate::typed::filter::{Filter, Op};
use crate::typed::path::Owns;

/// The values of a tagged enum's tag: the variants' stored names (see
/// [`TagField`]). A tag compares with a `str` only through [`TagField`]'s
/// own methods, which check the name.
pub struct Tag<E>(Owns<E>);
impl<E> Compare<str> for Tag<E> {}
impl<E> Compare<&str> for Tag<E> {}
impl<E> Compare<String> for Tag<E> {}

/// The tag of an internally or adjacently tagged enum `E` held by model
/// `M`, at the stored path `P`: `Recipe::FIELDS.kind.tag()` is stored as
/// `kind.type` for `#[serde(tag = "type")]`. Its values are the variants'
/// stored (serde) names: `eq`, `ne`, `is_in` and `not_in` take those names
/// and refuse any other one (an [`Error::Model`](crate::Error::Model) naming
/// the field and the variants, returned before anything is sent; a
/// misspelt variant would otherwise silently match nothing). It sorts
/// (`asc`, `desc`), tests `exists`, and is indexed by its Rust path
/// (`#[document(index(keys(kind.tag() = asc)))]`); it takes no typed update
/// (see `OutsideVariants`).
///
/// ```
/// use schema_core::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Embedded, Serialize, Deserialize)]
/// #[serde(tag = "type", rename_all = "lowercase")]
/// enum Kind {
///     Dish { serves: i32 },
///     Drink { glass: String },
/// }
///
/// #[derive(Document, Serialize, Deserialize)]
/// #[document(collection = "recipes")]
/// struct Recipe {
///     #[serde(rename = "_id")]
///     id: String,
///     kind: Kind,
/// }
///
/// let tag = Recipe::FIELDS.kind.tag();
/// assert_eq!(tag.name(), "kind.type");
/// assert_eq!(tag.eq("drink").into_document()?, bson::doc! { "kind.type": "drink" });
/// let typo = tag.eq("drinks").into_document().unwrap_err().to_string();
/// assert!(typo.contains("`dish`, `drink`"), "{typo}");
/// # Ok::<(), schema_core::Error>(())
/// ```
pub struct TagField<M, E, P> {
    field: Field<M, Tag<E>, P>,
}

impl<M, E, P> TagField<M, E, P> {
    /// The tag stored under `name`.
    pub const fn new(name: &'static str) -> Self {
        TagField {
            field: Field::new(name),
        }
    }

    /// The stored path (`kind.type`).
    pub const fn name(&self) -> &'static str {
        self.field.name
    }

    /// The tag as the string field it is stored as, for a row's group key
    /// (`#[group(key = details.tag())]`).
    #[doc(hidden)]
    pub const fn field(&self) -> Field<M, String, P> {
        Field::new(self.field.name)
    }
}

impl<M: Scope, E: crate::typed::path::Tagged, P> TagField<M, E, P> {
    /// `{path: variant}`: documents holding that variant.
    pub fn eq(&self, variant: &str) -> Filter<M> {
        Filter::predicate(self.name(), Op::Eq, self.variant(variant))
    }

    /// `{path: {$ne: variant}}`: documents holding another variant (or no
    /// enum at all).
    pub fn ne(&self, variant: &str) -> Filter<M> {
        Filter::predicate(self.name(), Op::Ne, self.variant(variant))
    }

    /// `{path: {$in: [variants]}}`: documents holding one of `variants`.
    pub fn is_in<'a>(&self, variants: impl IntoIterator<Item = &'a str>) -> Filter<M> {
        Filter::predicate(self.name(), Op::In, self.variants(variants))
    }

    /// `{path: {$nin: [variants]}}`: documents holding none of `variants`.
    pub fn not_in<'a>(&self, variants: impl IntoIterator<Item = &'a str>) -> Filter<M> {
        Filter::predicate(self.name(), Op::Nin, self.variants(variants))
    }

    fn variants<'a>(&self, variants: impl IntoIterator<Item = &'a str>) -> Result<Bson> {
        let values: Result<Vec<Bson>> = variants.into_iter().map(|v| self.variant(v)).collect();
        values.map(Bson::Array)
    }

    /// A variant's stored name as BSON, or the error naming the variants.
    fn variant(&self, name: &str) -> Result<Bson> {
        if E::VARIANTS.contains(&name) {
            return Ok(Bson::String(name.to_owned()));
        }
        let names: Vec<String> = E::VARIANTS.iter().map(|v| format!("`{v}`")).collect();
        Err(crate::Error::Model(format!(
            "`{}.{}` holds the tag of `{}`: a variant's stored name, one of {}; a value given to it is none of them (a variant is named as serde stores it, with its `rename` or `rename_all`)",
            M::NAME,
            self.name(),
            E::ENUM,
            names.join(", ")
        )))
    }
}

/// A tag sorts, tests `exists`, and is what an update names (which it
/// refuses) like a plain field.
impl<M, E, P> std::ops::Deref for TagField<M, E, P> {
    type Target = Field<M, Tag<E>, P>;
    fn deref(&self) -> &Self::Target {
        &self.field
    }
}

impl<M, E, P> std::fmt::Debug for TagField<M, E, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TagField({})", self.name())
    }
}

impl<M, E, P> Clone for TagField<M, E, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, E, P> Copy for TagField<M, E, P> {}
