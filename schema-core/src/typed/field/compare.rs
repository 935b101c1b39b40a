//! What a field compares with ([`Compare`], [`Typed`], and the
//! [`CustomSerializer`] path that takes no typed value) and the comparisons
//! of a field: `eq`, `ne`, the ranges, `is_in`, `not_in`, `exists`, and on
//! an array `contains`, `contains_all` and `elem_match` (whose conditions
//! are of model [`Elem`]).

use std::marker::PhantomData;

use bson::Bson;
use serde::Serialize;

use super::{Field, Scope};
use crate::error::Result;
use crate::model::codec::value_to_bson;
use crate::typed::filter::{Filter, Node, Op};
use crate::typed::path::{Nested, NestedFields, Prefix, Root};

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
