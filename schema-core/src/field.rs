//! Typed field constants: the stored name of a field, with what the model
//! says about it. `Post::FIELDS.author_id.name()` is `"authorId"` when the field
//! is renamed, so filters never carry a string typo.

use std::marker::PhantomData;

use bson::{doc, Bson, Document};
use serde::Serialize;

use crate::codec::value_to_bson;
use crate::error::Result;
use crate::index::Direction;
use crate::model::Document as Model;

/// A field of model `M` holding a `T`.
pub struct Field<M, T> {
    name: &'static str,
    _marker: PhantomData<fn() -> (M, T)>,
}

impl<M, T> Field<M, T> {
    /// A field stored under `name`.
    pub const fn new(name: &'static str) -> Self {
        Field {
            name,
            _marker: PhantomData,
        }
    }

    /// The stored (serde) name.
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

impl<M: Model, T: Serialize> Field<M, T> {
    /// `{name: value}`: an equality filter. A value that has no BSON form (a
    /// `u64` above `i64::MAX`) makes it an [`Error::Serialize`](crate::Error::Serialize) naming the
    /// field, which the helper given it returns before sending anything.
    pub fn eq(&self, value: &T) -> FieldDoc {
        FieldDoc(self.value(value).map(|v| doc! { self.name: v }))
    }

    /// `{name: {$in: [values]}}` (see [`eq`](Self::eq) for a value that has
    /// no BSON form).
    pub fn is_in<'a>(&self, values: impl IntoIterator<Item = &'a T>) -> FieldDoc
    where
        T: 'a,
    {
        let values: Result<Vec<Bson>> = values.into_iter().map(|v| self.value(v)).collect();
        FieldDoc(values.map(|values| doc! { self.name: { "$in": values } }))
    }

    /// `{$set: {name: value}}`: an update of this field alone (see
    /// [`eq`](Self::eq) for a value that has no BSON form: it is never stored
    /// as `null`).
    pub fn set(&self, value: &T) -> FieldDoc {
        FieldDoc(self.value(value).map(|v| doc! { "$set": { self.name: v } }))
    }
}

impl<M: Model, T> Field<M, T> {
    /// A value of (or in) this field as BSON.
    fn value<V: Serialize + ?Sized>(&self, value: &V) -> Result<Bson> {
        value_to_bson(value, M::NAME, self.name)
    }
}

impl<M, C> Field<M, C>
where
    M: Model,
    C: crate::bounded::BoundedCollection,
    C::Item: Serialize,
{
    /// `{name: item}`: documents whose array holds `item` (rides a multikey
    /// index on the array, such as the one every `#[many_to_many]` field gets).
    ///
    /// ```
    /// use schema_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Document, Serialize, Deserialize)]
    /// #[document(collection = "products")]
    /// struct Product {
    ///     #[serde(rename = "_id")]
    ///     id: String,
    ///     #[embed(max = 20)]
    ///     colors: Vec<String>,
    /// }
    ///
    /// let white = Product::FIELDS.colors.contains(&"white".to_owned());
    /// assert_eq!(white.into_document()?, bson::doc! { "colors": "white" });
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn contains(&self, item: &C::Item) -> FieldDoc {
        FieldDoc(self.value(item).map(|v| doc! { self.name: v }))
    }
}

/// A filter or update built by a typed field ([`Field::eq`], [`Field::is_in`],
/// [`Field::contains`], [`Field::set`]): the document, or the
/// [`Error::Serialize`](crate::Error::Serialize) of a value in it that has no BSON form (it is never
/// turned into `null`). The [`Repo`](crate::Repo) methods that take a filter
/// or an update take one (or a plain `bson::Document`) and return that error
/// before sending anything; [`into_document`](Self::into_document) hands it
/// to code of your own.
#[derive(Debug)]
#[must_use = "a filter or update does nothing until a helper runs it"]
pub struct FieldDoc(Result<Document>);

impl FieldDoc {
    /// The document, or why a value in it could not be serialized.
    pub fn into_document(self) -> Result<Document> {
        self.0
    }
}

impl From<Document> for FieldDoc {
    fn from(doc: Document) -> Self {
        FieldDoc(Ok(doc))
    }
}

macro_rules! copy_clone {
    ($($ty:ident<$($p:ident),*>),*) => {
        $(impl<$($p),*> Clone for $ty<$($p),*> {
            fn clone(&self) -> Self { *self }
        }
        impl<$($p),*> Copy for $ty<$($p),*> {})*
    };
}
copy_clone!(Field<M, T>, EmbedField<M, C>, RefField<M, T, R>, LinkField<M, C, R>);

impl<M, T> std::fmt::Debug for Field<M, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Field({})", self.name)
    }
}

/// Which items an `#[embed(max = N, keep = "...")]` array keeps embedded
/// when it is full (the subset pattern: the rest live in a `history` collection).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Keep {
    /// `keep = "newest"`: the newest `max` items; older ones leave the array.
    Newest,
    /// `keep = "oldest"`: the first `max` items; later ones are not embedded.
    Oldest,
}

/// An `#[embed(max = N)]` array or map field of model `M` of type `C`.
pub struct EmbedField<M, C> {
    field: Field<M, C>,
    max: u32,
    keep: Option<Keep>,
    history: Option<fn() -> &'static str>,
}

impl<M, C> EmbedField<M, C> {
    /// A bounded field stored under `name` with at most `max` items.
    pub const fn new(name: &'static str, max: u32) -> Self {
        EmbedField {
            field: Field::new(name),
            max,
            keep: None,
            history: None,
        }
    }
    /// The subset pattern: which items stay embedded, and the collection
    /// (given as a fn returning its name) that holds the full history.
    pub const fn with_subset(mut self, keep: Keep, history: Option<fn() -> &'static str>) -> Self {
        self.keep = Some(keep);
        self.history = history;
        self
    }
    /// `keep = "..."`, when the field uses the subset pattern.
    pub const fn keep(&self) -> Option<Keep> {
        self.keep
    }
    /// The collection of the `history = Model` that holds every item, if any.
    pub fn history_collection(&self) -> Option<&'static str> {
        self.history.map(|f| f())
    }
    /// The stored name.
    pub const fn name(&self) -> &'static str {
        self.field.name
    }
    /// The most items the field may hold.
    pub const fn max(&self) -> u32 {
        self.max
    }
    /// The plain field, for filters.
    pub const fn field(&self) -> Field<M, C> {
        self.field
    }
}

/// A `#[reference(index)]` field of model `M` holding a `T` that is the `_id`
/// of an `R` (`R = ()` when the target type is not named).
pub struct RefField<M, T, R> {
    field: Field<M, T>,
    sort: Option<(&'static str, Direction)>,
    _target: PhantomData<fn() -> R>,
}

impl<M, T, R> RefField<M, T, R> {
    /// A reference stored under `name`, indexed with `sort` as its second key.
    pub const fn new(name: &'static str, sort: Option<(&'static str, Direction)>) -> Self {
        RefField {
            field: Field::new(name),
            sort,
            _target: PhantomData,
        }
    }
    /// The stored name.
    pub const fn name(&self) -> &'static str {
        self.field.name
    }
    /// The sort key that makes the reference index compound, if any.
    pub const fn sort(&self) -> Option<(&'static str, Direction)> {
        self.sort
    }
    /// The plain field, for filters.
    pub const fn field(&self) -> Field<M, T> {
        self.field
    }
}

/// A `#[many_to_many]` id array of model `M`, of collection type `C`, whose
/// items are `_id`s of `R`.
pub struct LinkField<M, C, R> {
    field: Field<M, C>,
    max: u32,
    inverse: Option<fn() -> &'static str>,
    _target: PhantomData<fn() -> R>,
}

impl<M, C, R> LinkField<M, C, R> {
    /// An id array stored under `name` with at most `max` ids; `inverse` gives
    /// the stored name of the array on the other side when two-sided.
    pub const fn new(name: &'static str, max: u32, inverse: Option<fn() -> &'static str>) -> Self {
        LinkField {
            field: Field::new(name),
            max,
            inverse,
            _target: PhantomData,
        }
    }
    /// The stored name.
    pub const fn name(&self) -> &'static str {
        self.field.name
    }
    /// The most ids the array may hold.
    pub const fn max(&self) -> u32 {
        self.max
    }
    /// Whether the other side keeps the inverse array.
    pub const fn is_two_sided(&self) -> bool {
        self.inverse.is_some()
    }
    /// The stored name of the inverse array on the other side (two-sided only).
    pub fn inverse_name(&self) -> Option<&'static str> {
        self.inverse.map(|f| f())
    }
    /// The plain field, for filters.
    pub const fn field(&self) -> Field<M, C> {
        self.field
    }
}

/// A bounded, reference or link field filters like its plain field:
/// `Post::FIELDS.author_id.eq(&id)`, `.is_in(...)`, `.set(...)`.
macro_rules! deref_to_field {
    ($($ty:ident<$m:ident, $t:ident $(, $r:ident)?>),*) => {
        $(impl<$m, $t $(, $r)?> std::ops::Deref for $ty<$m, $t $(, $r)?> {
            type Target = Field<$m, $t>;
            fn deref(&self) -> &Field<$m, $t> {
                &self.field
            }
        })*
    };
}
deref_to_field!(EmbedField<M, C>, RefField<M, T, R>, LinkField<M, C, R>);
