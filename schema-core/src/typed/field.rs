//! Typed field constants: the stored name of a field, with what the model
//! says about it. `Post::FIELDS.author_id.name()` is `"authorId"` when the field
//! is renamed, so filters never carry a string typo.

use std::marker::PhantomData;

use bson::Bson;
use serde::Serialize;

use crate::error::Result;
use crate::model::codec::value_to_bson;
use crate::model::index::Direction;
use crate::model::Document as Model;
use crate::typed::filter::{Filter, Node, Op};
use crate::typed::path::{Below, Descend, Nested, NestedFields, Owns, Prefix, Root};

/// A field of model `M` holding a `T`, at the stored path `P` (a
/// [`Seg`](crate::typed::path::Seg) for the fields the derives generate, whose
/// sub-document fields it dereferences to; see [`path`](super::path)).
pub struct Field<M, T, P = ()> {
    name: &'static str,
    _marker: Owns<(M, T, P)>,
}

impl<M, T, P> Field<M, T, P> {
    /// A field stored under `name`.
    pub const fn new(name: &'static str) -> Self {
        Field {
            name,
            _marker: PhantomData,
        }
    }

    /// The stored (serde) name; the dotted path for a field of a
    /// sub-document (`profile.displayName`).
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

/// A field holding a sub-document (or an `Option`, `Box` or array of one)
/// dereferences to the sub-document's field constants, below its path:
/// `User::FIELDS.profile.display_name`.
impl<M: 'static, T: Nested, P: Prefix> std::ops::Deref for Field<M, T, P> {
    type Target = T::Fields<M, Below<P, T::Count>>;
    fn deref(&self) -> &Self::Target {
        <Self::Target as NestedFields>::FIELDS
    }
}

/// The model a field constant belongs to, as errors name it: every
/// [`Document`](crate::Document).
pub trait Scope {
    /// The Rust type name, for messages.
    const NAME: &'static str;
}

impl<D: Model> Scope for D {
    const NAME: &'static str = D::NAME;
}

/// A field of type `Self` can be compared with a `V`: its own type, or `T`
/// on an `Option<T>` field (`&str` on a `String` field).
#[diagnostic::on_unimplemented(
    message = "a `{Self}` field cannot be compared with a `{V}`",
    label = "this value has the wrong type for the field",
    note = "give a value of the field's type (`&{Self}`), or of `T` for an `Option<T>` field"
)]
pub trait Compare<V: ?Sized> {}
impl<T> Compare<T> for T {}
impl<T> Compare<T> for Option<T> {}
impl<T> Compare<T> for Box<T> {}
impl Compare<str> for String {}
impl Compare<str> for Option<String> {}

/// The path type of a field constant whose field has `#[serde(with)]` or
/// `serialize_with`: the field stores what its serializer writes, not what
/// its type's own `Serialize` would, so it takes no typed value (a value
/// serialized as the type could silently match nothing, or store another
/// form). Filter or update it with a raw `bson::Document` holding the stored
/// form; `exists` and `unset` still work.
pub struct CustomSerializer;
#[diagnostic::do_not_recommend]
impl<M> crate::typed::path::OutsideBuckets<M> for CustomSerializer {}
#[diagnostic::do_not_recommend]
impl crate::typed::path::OutsideVariants for CustomSerializer {}

/// A field whose values are stored as its type serializes them: every
/// field constant but a [`CustomSerializer`] one.
#[diagnostic::on_unimplemented(
    message = "this field has `#[serde(with)]` or `serialize_with`: it takes no typed value",
    label = "its stored form is the serializer's, not its type's",
    note = "a value serialized as the field's type could silently match nothing, or store another form: give the stored form in a raw `bson::Document`"
)]
pub trait Typed {}
impl Typed for () {}
impl<P: Prefix> Typed for P {}

/// Comparisons: each is one [`Predicate`](crate::typed::filter::Predicate) on the
/// field's stored path. A value that has no BSON form (a `u64` above
/// `i64::MAX`) makes the filter an [`Error::Serialize`](crate::Error::Serialize)
/// naming the field, which the helper given it returns before sending
/// anything; it is never sent as `null`.
///
/// ```
/// use schema_core::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Document, Serialize, Deserialize)]
/// #[document(collection = "users")]
/// struct User {
///     #[serde(rename = "_id")]
///     id: String,
///     #[serde(rename = "displayName")]
///     name: String,
///     age: Option<i32>,
///     visits: u64,
/// }
///
/// let f = User::FIELDS;
/// let doc = |filter: Filter<User>| filter.into_document().unwrap();
/// assert_eq!(doc(f.name.eq("Ada")), bson::doc! { "displayName": "Ada" });
/// assert_eq!(doc(f.name.ne("Bob")), bson::doc! { "displayName": { "$ne": "Bob" } });
/// // An `Option<i32>` field compares with an `i32` (or an `Option<i32>`).
/// assert_eq!(doc(f.age.gt(&17)), bson::doc! { "age": { "$gt": 17 } });
/// assert_eq!(doc(f.age.gte(&18)), bson::doc! { "age": { "$gte": 18 } });
/// assert_eq!(doc(f.age.lt(&65)), bson::doc! { "age": { "$lt": 65 } });
/// assert_eq!(doc(f.age.lte(&64)), bson::doc! { "age": { "$lte": 64 } });
/// assert_eq!(doc(f.age.eq(&None)), bson::doc! { "age": null });
/// assert_eq!(doc(f.age.exists(false)), bson::doc! { "age": { "$exists": false } });
/// assert_eq!(doc(f.name.is_in(["Ada", "Bob"])), bson::doc! { "displayName": { "$in": ["Ada", "Bob"] } });
/// assert_eq!(doc(f.age.not_in([&1, &2])), bson::doc! { "age": { "$nin": [1, 2] } });
/// // No BSON form: an error naming the field, never `null`.
/// let err = f.visits.eq(&u64::MAX).into_document().unwrap_err();
/// assert!(err.to_string().contains("visits"), "{err}");
/// ```
impl<M: Scope, T, P> Field<M, T, P> {
    /// `{path: value}` (`{path: {$eq: value}}` when the value is a document).
    pub fn eq<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        T: Compare<V>,
        P: Typed,
    {
        self.compare(Op::Eq, value)
    }

    /// `{path: {$ne: value}}` (also matches documents without the field).
    pub fn ne<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        T: Compare<V>,
        P: Typed,
    {
        self.compare(Op::Ne, value)
    }

    /// `{path: {$gt: value}}`.
    pub fn gt<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        T: Compare<V>,
        P: Typed,
    {
        self.compare(Op::Gt, value)
    }

    /// `{path: {$gte: value}}`.
    pub fn gte<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        T: Compare<V>,
        P: Typed,
    {
        self.compare(Op::Gte, value)
    }

    /// `{path: {$lt: value}}`.
    pub fn lt<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        T: Compare<V>,
        P: Typed,
    {
        self.compare(Op::Lt, value)
    }

    /// `{path: {$lte: value}}`.
    pub fn lte<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        T: Compare<V>,
        P: Typed,
    {
        self.compare(Op::Lte, value)
    }

    /// `{path: {$in: [values]}}`: equal to one of `values` (none when empty).
    pub fn is_in<'a, V: Serialize + ?Sized + 'a>(
        &self,
        values: impl IntoIterator<Item = &'a V>,
    ) -> Filter<M>
    where
        T: Compare<V>,
        P: Typed,
    {
        self.list(Op::In, values)
    }

    /// `{path: {$nin: [values]}}`: equal to none of `values` (also matches
    /// documents without the field).
    pub fn not_in<'a, V: Serialize + ?Sized + 'a>(
        &self,
        values: impl IntoIterator<Item = &'a V>,
    ) -> Filter<M>
    where
        T: Compare<V>,
        P: Typed,
    {
        self.list(Op::Nin, values)
    }

    /// `{path: {$exists: present}}`: whether the document holds the field
    /// at all (a stored `null` exists).
    pub fn exists(&self, present: bool) -> Filter<M> {
        Filter::predicate(self.name, Op::Exists, Ok(Bson::Boolean(present)))
    }

    fn compare<V: Serialize + ?Sized>(&self, op: Op, value: &V) -> Filter<M> {
        Filter::predicate(self.name, op, self.value(value))
    }

    fn list<'a, V: Serialize + ?Sized + 'a>(
        &self,
        op: Op,
        values: impl IntoIterator<Item = &'a V>,
    ) -> Filter<M> {
        let values: Result<Vec<Bson>> = values.into_iter().map(|v| self.value(v)).collect();
        Filter::predicate(self.name, op, values.map(Bson::Array))
    }

    /// A value of (or in) this field as BSON.
    fn value<V: Serialize + ?Sized>(&self, value: &V) -> Result<Bson> {
        value_to_bson(value, M::NAME, self.name)
    }
}

impl<M, C, P> Field<M, C, P>
where
    M: Scope,
    C: crate::model::bounded::EmbedArray,
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
    pub fn contains(&self, item: &C::Item) -> Filter<M>
    where
        P: Typed,
    {
        self.compare(Op::Eq, item)
    }

    /// `{name: {$all: [items]}}`: documents whose array holds every one of
    /// `items` (in any order; none when `items` is empty).
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
    /// let both = Product::FIELDS.colors.contains_all(&["red".to_owned(), "blue".to_owned()]);
    /// assert_eq!(both.into_document()?, bson::doc! { "colors": { "$all": ["red", "blue"] } });
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn contains_all<'a>(&self, items: impl IntoIterator<Item = &'a C::Item>) -> Filter<M>
    where
        C::Item: 'a,
        P: Typed,
    {
        self.list(Op::All, items)
    }
}

/// The items of an array of model `M`, as the model of the conditions inside
/// an [`elem_match`](Field::elem_match): their paths are relative to the
/// item, so such a filter cannot be given where a filter of `M` is wanted.
pub struct Elem<M>(PhantomData<fn() -> M>);

impl<M: Scope> Scope for Elem<M> {
    const NAME: &'static str = M::NAME;
}

impl<M, C, P> Field<M, C, P>
where
    M: Scope + 'static,
    C: crate::model::bounded::EmbedArray,
    C::Item: Nested,
{
    /// `{path: {$elemMatch: condition}}`: documents with one item of the
    /// array that meets every part of `condition` at once (a dotted path
    /// such as `Order::FIELDS.items.sku` matches each part against any item).
    /// `condition` is built from the item's field constants, given to it.
    ///
    /// ```
    /// use schema_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Embedded, Serialize, Deserialize)]
    /// struct Line {
    ///     sku: String,
    ///     #[serde(rename = "qty")]
    ///     quantity: i32,
    /// }
    ///
    /// #[derive(Document, Serialize, Deserialize)]
    /// #[document(collection = "orders")]
    /// struct Order {
    ///     #[serde(rename = "_id")]
    ///     id: String,
    ///     #[embed(max = 50)]
    ///     lines: Vec<Line>,
    /// }
    ///
    /// let bulk = Order::FIELDS.lines.elem_match(|l| l.sku.eq("W-1") & l.quantity.gte(&10));
    /// assert_eq!(
    ///     bulk.into_document()?,
    ///     bson::doc! { "lines": { "$elemMatch": { "sku": "W-1", "qty": { "$gte": 10 } } } }
    /// );
    /// // Across items: some line has sku W-1, some line (maybe another) has 10 or more.
    /// let f = Order::FIELDS;
    /// let loose = f.lines.sku.eq("W-1") & f.lines.quantity.gte(&10);
    /// assert_eq!(
    ///     loose.into_document()?,
    ///     bson::doc! { "lines.sku": "W-1", "lines.qty": { "$gte": 10 } }
    /// );
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn elem_match<F>(&self, condition: F) -> Filter<M>
    where
        F: FnOnce(&<C::Item as Nested>::Fields<Elem<M>, Root>) -> Filter<Elem<M>>,
        P: Typed,
    {
        let fields = <<C::Item as Nested>::Fields<Elem<M>, Root> as NestedFields>::FIELDS;
        let path = self.name;
        Filter::from_node(condition(fields).into_node().map(|node| Node::ElemMatch {
            path,
            filter: Box::new(node),
        }))
    }
}

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
/// (see [`OutsideVariants`](crate::typed::path::OutsideVariants)).
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

macro_rules! copy_clone {
    ($($ty:ident<$($p:ident),*>),*) => {
        $(impl<$($p),*> Clone for $ty<$($p),*> {
            fn clone(&self) -> Self { *self }
        }
        impl<$($p),*> Copy for $ty<$($p),*> {})*
    };
}
copy_clone!(
    Field<M, T, P>,
    EmbedField<M, C, P>,
    RefField<M, T, R>,
    LinkField<M, C, R>,
    TagField<M, E, P>
);

impl<M, T, P> std::fmt::Debug for Field<M, T, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Field({})", self.name)
    }
}

/// Which items an `#[embed(max = N, keep = "...")]` array keeps embedded
/// when it is full (the subset pattern: the rest live in a `history` collection).
/// Other orders may come, so a `match` needs a `_` arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Keep {
    /// `keep = "newest"`: the newest `max` items; older ones leave the array.
    Newest,
    /// `keep = "oldest"`: the first `max` items; later ones are not embedded.
    Oldest,
}

/// An `#[embed(max = N)]` array or map field of model `M` of type `C`, at
/// the stored path `P` (see [`Field`]).
pub struct EmbedField<M, C, P = ()> {
    field: Field<M, C, P>,
    max: u32,
    keep: Option<Keep>,
    history: Option<fn() -> &'static str>,
}

impl<M, C, P> EmbedField<M, C, P> {
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
    pub const fn field(&self) -> Field<M, C, P> {
        self.field
    }
    /// The same field without its path type (the bounded-array helpers take
    /// this one).
    pub const fn erase(self) -> EmbedField<M, C> {
        EmbedField {
            field: Field::new(self.field.name),
            max: self.max,
            keep: self.keep,
            history: self.history,
        }
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
    ($($ty:ident<$m:ident, $t:ident, $r:ident> => $p:ty),*) => {
        $(impl<$m, $t, $r> std::ops::Deref for $ty<$m, $t, $r> {
            type Target = Field<$m, $t, $p>;
            fn deref(&self) -> &Self::Target {
                &self.field
            }
        })*
    };
}
deref_to_field!(EmbedField<M, C, P> => P, RefField<M, T, R> => (), LinkField<M, C, R> => ());

// An index key naming a nested field by its Rust path descends through
// these (see [`Descend`]).
impl<M: 'static, T: Nested, P: Prefix> Descend for Field<M, T, P> {
    type Target = T::Fields<M, Below<P, T::Count>>;
}

impl<M: 'static, T: Nested, P: Prefix> Descend for EmbedField<M, T, P> {
    type Target = T::Fields<M, Below<P, T::Count>>;
}
