//! Typed updates: [`Update<M>`] is one update document for model `M`, built
//! from the field constants and composed with [`and`](Update::and) (or `&`).
//!
//! `set`, `unset` (only on `Option` fields: anything else does not compile),
//! `inc` and `mul` (numeric fields), `min`, `max`, `current_date` (date
//! fields), and one array operation: [`push`](crate::EmbedField::push) on an
//! `#[embed(max = N)]` field, which carries the same guard as the bounded
//! push of [`embed`](crate::write::embed) (the update matches only while the array
//! has room; a set uses `$addToSet` and counts only the items it does not
//! hold). A plain array field (`#[embed(unbounded = "...")]`) has no push at
//! all, so there is no typed way to grow an array past its bound.
//!
//! ```
//! use schema_core::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Document, Serialize, Deserialize)]
//! #[document(collection = "posts")]
//! struct Post {
//!     #[serde(rename = "_id")]
//!     id: String,
//!     title: String,
//!     likes: i64,
//!     subtitle: Option<String>,
//!     #[serde(rename = "editedAt")]
//!     edited_at: Option<bson::DateTime>,
//! }
//!
//! let f = Post::FIELDS;
//! let edit = f.title.set("Hello") & f.likes.inc(&1) & f.subtitle.unset() & f.edited_at.current_date();
//! assert_eq!(
//!     edit.into_document()?,
//!     bson::doc! {
//!         "$set": { "title": "Hello" },
//!         "$inc": { "likes": 1_i64 },
//!         "$unset": { "subtitle": "" },
//!         "$currentDate": { "editedAt": { "$type": "date" } },
//!     }
//! );
//! # Ok::<(), schema_core::Error>(())
//! ```
//!
//! Every update names one stored value: a path through an array of
//! sub-documents (`Order::FIELDS.lines.qty`, which names the `qty` of every
//! line) has no `set`, `inc`, `unset` or `push` (a compile error: the server
//! refuses `{$set: {"lines.qty": 1}}`, code 28). Change such items with a
//! raw update (`$[]` for all of them, `$[elem]` with `arrayFilters` for some).
//!
//! A value that has no BSON form makes the update an
//! [`Error::Serialize`] naming the field (never
//! `null`); two operations on one path (or on a path and a path inside it)
//! make it an [`Error::Model`]. Either is returned by
//! the [`Repo`](crate::Repo) before anything is sent.

use std::marker::PhantomData;

use bson::{doc, Bson, Document as BsonDocument};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::bounded::BoundedCollection;
use crate::model::bounded::EmbedArray;
use crate::model::codec::value_to_bson;
use crate::model::Updatable;
use crate::typed::field::{Compare, EmbedField, Field, Scope, Typed};
use crate::typed::path::{OutsideArrays, OutsideBuckets, OutsideVariants};
use crate::typed::push::BoundedPush;

/// One update document of model `M` (see the [module docs](self)).
#[must_use = "an update does nothing until a helper runs it"]
pub struct Update<M> {
    parts: Result<Parts>,
    _model: PhantomData<fn() -> M>,
}

#[derive(Debug, Default)]
struct Parts {
    /// `(operator, path, value)` in the order given.
    ops: Vec<(&'static str, &'static str, Bson)>,
    /// Bounded pushes, one per array (two pushes into one array are one).
    pushes: Vec<BoundedPush>,
    /// A plain document given as it is.
    raw: Option<BsonDocument>,
}

/// An [`Update`] taken apart: the update document and the conditions its
/// filter must add (the guards of its bounded pushes; `{}` when it has
/// none). A helper that sends it adds `guard` to its own filter, and reads
/// a match count of 0 with [`full_error`](Self::full_error).
#[derive(Debug)]
pub struct UpdateParts {
    /// The update document (`{$set: {...}, $inc: {...}, ...}`).
    pub update: BsonDocument,
    /// The conditions under which the pushes have room.
    pub guard: BsonDocument,
    pub(crate) pushes: Vec<BoundedPush>,
}

impl UpdateParts {
    /// Whether it pushes into a bounded array (and so has a guard).
    pub fn has_guard(&self) -> bool {
        !self.pushes.is_empty()
    }

    /// The stored paths of the arrays it pushes into (project them to call
    /// [`full_error`](Self::full_error)).
    pub fn guarded_paths(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.pushes.iter().map(|p| p.path)
    }

    /// After the update matched the document `id` but for its guard:
    /// [`Error::EmbedFull`] for the first array of `stored` (the document as
    /// it is now) that has no room for its push; for the first array pushed
    /// into when every one has room again (it had none when the update ran,
    /// as a concurrent pull may have made some since).
    pub fn full_error(&self, collection: &'static str, id: &Bson, stored: &BsonDocument) -> Error {
        let push = self
            .pushes
            .iter()
            .find(|push| push.is_full(stored))
            .or(self.pushes.first());
        match push {
            Some(push) => push.full(collection, id),
            None => Error::Model(format!(
                "an update of `{collection}` `{}` without a push has no array to be full",
                crate::error::id_text(id)
            )),
        }
    }
}

impl<M> Update<M> {
    fn from_parts(parts: Result<Parts>) -> Self {
        Update {
            parts,
            _model: PhantomData,
        }
    }

    fn op(operator: &'static str, path: &'static str, value: Result<Bson>) -> Self {
        Self::from_parts(value.map(|value| Parts {
            ops: vec![(operator, path, value)],
            ..Parts::default()
        }))
    }

    /// Both this and `other` in one update document (`self & other`).
    ///
    /// ```
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "items")]
    /// # struct Item {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     stock: i32,
    /// #     sold: i32,
    /// # }
    /// let f = Item::FIELDS;
    /// let sale = f.stock.inc(&-1).and(f.sold.inc(&1));
    /// assert_eq!(sale.into_document()?, bson::doc! { "$inc": { "stock": -1, "sold": 1 } });
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn and(self, other: Update<M>) -> Self {
        Self::from_parts(self.parts.and_then(|mut a| {
            let b = other.parts?;
            a.ops.extend(b.ops);
            for push in b.pushes {
                BoundedPush::merge_into(&mut a.pushes, push);
            }
            a.raw = match (a.raw, b.raw) {
                (Some(mut x), Some(y)) => {
                    x.extend(y);
                    Some(x)
                }
                (x, y) => x.or(y),
            };
            Ok(a)
        }))
    }

    /// The update document and its guard (see [`UpdateParts`]), or the
    /// error of a value in it, of two operations on one path, or of an
    /// update that changes nothing (a `push_all` of no items alone).
    pub fn into_parts(self) -> Result<UpdateParts> {
        let parts = self.parts?;
        let mut update = parts.raw.unwrap_or_default();
        let mut guard = BsonDocument::new();
        let mut paths: Vec<&'static str> = Vec::new();
        let pushes = parts.pushes;
        let pushed = pushes.iter().map(|p| {
            let (condition, operator, value) = p.guarded();
            guard.extend(condition);
            (operator, p.path, value)
        });
        let all: Vec<_> = parts
            .ops
            .into_iter()
            .chain(pushed.collect::<Vec<_>>())
            .collect();
        for (operator, path, value) in all {
            if let Some(other) = paths.iter().find(|other| overlap(other, path)) {
                return Err(Error::Model(format!(
                    "an update names `{path}` and `{other}`: one update may change a path once, and not a path inside it"
                )));
            }
            paths.push(path);
            match update.get_mut(operator) {
                Some(Bson::Document(fields)) => {
                    fields.insert(path, value);
                }
                _ => {
                    update.insert(operator, doc! { path: value });
                }
            }
        }
        if update.is_empty() {
            return Err(Error::Model(
                "an update that changes nothing (no operator, no item to push): nothing to send"
                    .to_owned(),
            ));
        }
        Ok(UpdateParts {
            update,
            guard,
            pushes,
        })
    }

    /// The update document; an [`Error::Model`] when it pushes into a
    /// bounded array, whose guard only [`into_parts`](Self::into_parts)
    /// hands out (a push without it could take the array past its bound).
    pub fn into_document(self) -> Result<BsonDocument> {
        let parts = self.into_parts()?;
        if let Some(path) = parts.guarded_paths().next() {
            return Err(Error::Model(format!(
                "the update pushes into `{path}`, which is bounded: send it with its guard (`into_parts`), or through a `Repo` helper"
            )));
        }
        Ok(parts.update)
    }
}

/// Whether `a` and `b` are one path, or one is inside the other.
fn overlap(a: &str, b: &str) -> bool {
    let inside = |long: &str, short: &str| {
        long.len() > short.len() && long.starts_with(short) && long.as_bytes()[short.len()] == b'.'
    };
    a == b || inside(a, b) || inside(b, a)
}

impl<M> From<BsonDocument> for Update<M> {
    /// A raw update document, sent as it is (no guard: raw access).
    fn from(doc: BsonDocument) -> Self {
        Self::from_parts(Ok(Parts {
            raw: Some(doc),
            ..Parts::default()
        }))
    }
}

impl<M> std::ops::BitAnd for Update<M> {
    type Output = Update<M>;
    fn bitand(self, rhs: Update<M>) -> Update<M> {
        self.and(rhs)
    }
}

impl<M> std::fmt::Debug for Update<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.parts {
            Ok(parts) => write!(f, "Update({parts:?})"),
            Err(e) => write!(f, "Update(error: {e})"),
        }
    }
}

/// A numeric type: `inc` and `mul` take one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number: `inc` and `mul` apply to numeric fields",
    label = "not a numeric value"
)]
pub trait Number: Serialize {}

/// The type of a numeric field: a [`Number`], or an `Option` or `Box` of
/// one. `inc` and `mul` take a `Self::Number`, so one bound carries both
/// rules (a numeric field, a number of its type) and a text field is told
/// it is not a number, whatever it is given.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number: `inc` and `mul` apply to numeric fields",
    label = "not a numeric field",
    note = "`inc` and `mul` take a number of the field's type (of `T` on an `Option<T>` field); `set` stores any value of the field's type"
)]
pub trait NumericField {
    /// The number `inc` and `mul` take.
    type Number: Number;
}

// One impl per type, no blanket over `Number`: a blanket impl would be the
// one candidate for a `String`, and the compiler would then report the
// number it takes (`String`) against the value given, twice.
macro_rules! number {
    ($($t:ty),*) => { $(
        impl Number for $t {}
        #[diagnostic::do_not_recommend]
        impl NumericField for $t {
            type Number = $t;
        }
        #[diagnostic::do_not_recommend]
        impl NumericField for Option<$t> {
            type Number = $t;
        }
        #[diagnostic::do_not_recommend]
        impl NumericField for Box<$t> {
            type Number = $t;
        }
    )* };
}
number!(
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    bson::Decimal128
);

/// A field type `$currentDate` can set: `bson::DateTime` (a date) or
/// `bson::Timestamp`, or an `Option`/`Box` of one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a BSON date or timestamp: `current_date` sets a `bson::DateTime` or `bson::Timestamp` field",
    label = "not a date field"
)]
pub trait DateField {
    /// `"date"` or `"timestamp"`.
    const TYPE: &'static str;
}
impl DateField for bson::DateTime {
    const TYPE: &'static str = "date";
}
impl DateField for bson::Timestamp {
    const TYPE: &'static str = "timestamp";
}
impl<T: DateField> DateField for Option<T> {
    const TYPE: &'static str = T::TYPE;
}
impl<T: DateField> DateField for Box<T> {
    const TYPE: &'static str = T::TYPE;
}

/// Updates of one field: each is one operator on the field's stored path.
///
/// ```
/// use schema_core::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Document, Serialize, Deserialize)]
/// #[document(collection = "items")]
/// struct Item {
///     #[serde(rename = "_id")]
///     id: String,
///     stock: i32,
///     price: f64,
///     low: Option<i32>,
///     seen: bson::DateTime,
/// }
///
/// let f = Item::FIELDS;
/// let doc = |u: Update<Item>| u.into_document().unwrap();
/// assert_eq!(doc(f.stock.set(&3)), bson::doc! { "$set": { "stock": 3 } });
/// assert_eq!(doc(f.stock.inc(&-1)), bson::doc! { "$inc": { "stock": -1 } });
/// assert_eq!(doc(f.price.mul(&1.1)), bson::doc! { "$mul": { "price": 1.1 } });
/// assert_eq!(doc(f.low.min(&2)), bson::doc! { "$min": { "low": 2 } });
/// assert_eq!(doc(f.stock.max(&0)), bson::doc! { "$max": { "stock": 0 } });
/// assert_eq!(doc(f.low.unset()), bson::doc! { "$unset": { "low": "" } });
/// assert_eq!(
///     doc(f.seen.current_date()),
///     bson::doc! { "$currentDate": { "seen": { "$type": "date" } } }
/// );
/// // One path changed twice is refused.
/// assert!(f.stock.inc(&1).and(f.stock.set(&0)).into_document().is_err());
/// ```
impl<M: Scope, T, P> Field<M, T, P> {
    /// `{$set: {path: value}}` (on an `Option<T>` field, a `T` stores it).
    pub fn set<V: Serialize + ?Sized>(&self, value: &V) -> Update<M>
    where
        T: Compare<V>,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$set", self.name(), self.bson(value))
    }

    /// `{$inc: {path: by}}` on a numeric field.
    pub fn inc(&self, by: &T::Number) -> Update<M>
    where
        T: NumericField,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$inc", self.name(), self.bson(by))
    }

    /// `{$mul: {path: by}}` on a numeric field.
    pub fn mul(&self, by: &T::Number) -> Update<M>
    where
        T: NumericField,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$mul", self.name(), self.bson(by))
    }

    /// `{$min: {path: value}}`: stores `value` if it is below the stored one.
    pub fn min<V: Serialize + ?Sized>(&self, value: &V) -> Update<M>
    where
        T: Compare<V>,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$min", self.name(), self.bson(value))
    }

    /// `{$max: {path: value}}`: stores `value` if it is above the stored one.
    pub fn max<V: Serialize + ?Sized>(&self, value: &V) -> Update<M>
    where
        T: Compare<V>,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$max", self.name(), self.bson(value))
    }

    /// `{$currentDate: {path: {$type: "date"}}}` (or `"timestamp"`) on a
    /// `bson::DateTime` or `bson::Timestamp` field: the server's clock.
    pub fn current_date(&self) -> Update<M>
    where
        T: DateField,
        P: Typed + OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        let kind = doc! { "$type": T::TYPE };
        Update::op("$currentDate", self.name(), Ok(Bson::Document(kind)))
    }

    fn bson<V: Serialize + ?Sized>(&self, value: &V) -> Result<Bson> {
        value_to_bson(value, M::NAME, self.name())
    }
}

/// A field type that may be absent: `Option<T>`. `unset` needs one.
#[diagnostic::on_unimplemented(
    message = "`unset` removes a field, and a `{Self}` field is required: only an `Option` field may be absent",
    label = "not an `Option` field",
    note = "make the field an `Option<_>`, or `set` it to another value"
)]
pub trait Optional {}
impl<T> Optional for Option<T> {}

impl<M: Scope, T, P> Field<M, T, P> {
    /// `{$unset: {path: ""}}`: removes the field, which reads back as `None`.
    /// Only an `Option` field has it: a required field cannot be removed.
    pub fn unset(&self) -> Update<M>
    where
        T: Optional,
        P: OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        Update::op("$unset", self.name(), Ok(Bson::String(String::new())))
    }
}

impl<M: Scope, C, P> EmbedField<M, C, P>
where
    C: EmbedArray,
    C::Item: Serialize,
{
    /// Appends `item` only while the array holds fewer than `max` items: the
    /// update's filter gets the bounded push's guard (`{path.<max-1>:
    /// {$exists: false}}`; a set pushes with `$addToSet`, and counts only
    /// the items it does not hold yet). When the array is full the
    /// [`Repo`](crate::Repo) returns [`Error::EmbedFull`] and writes nothing
    /// (not even the rest of the update).
    ///
    /// ```
    /// use schema_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Document, Serialize, Deserialize)]
    /// #[document(collection = "posts")]
    /// struct Post {
    ///     #[serde(rename = "_id")]
    ///     id: String,
    ///     #[embed(max = 10)]
    ///     tags: Vec<String>,
    ///     edits: i32,
    /// }
    ///
    /// let f = Post::FIELDS;
    /// let parts = (f.tags.push(&"rust".to_owned()) & f.edits.inc(&1)).into_parts()?;
    /// assert_eq!(parts.update, bson::doc! { "$inc": { "edits": 1 }, "$push": { "tags": "rust" } });
    /// assert_eq!(parts.guard, bson::doc! { "tags.9": { "$exists": false } });
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn push(&self, item: &C::Item) -> Update<M>
    where
        P: OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        self.push_all(std::slice::from_ref(item))
    }

    /// Appends all of `items` or none (room for every one of them; on a set,
    /// for the ones it does not hold yet). More items than `max` is
    /// [`Error::EmbedFull`] before anything is sent. Two pushes into one
    /// array in one update are one push of both (one guard counts both).
    ///
    /// ```
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # use std::collections::BTreeSet;
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "posts")]
    /// # struct Post {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     #[embed(max = 10)]
    /// #     tags: Vec<String>,
    /// #     #[embed(max = 5)]
    /// #     labels: BTreeSet<String>,
    /// # }
    /// let f = Post::FIELDS;
    /// let two = f.tags.push_all(&["a".to_owned(), "b".to_owned()]).into_parts()?;
    /// assert_eq!(two.update, bson::doc! { "$push": { "tags": { "$each": ["a", "b"] } } });
    /// assert_eq!(two.guard, bson::doc! { "tags.8": { "$exists": false } });
    /// // A set: `$addToSet`, and a guard that counts only what it does not hold.
    /// let set = f.labels.push(&"x".to_owned()).into_parts()?;
    /// assert_eq!(set.update, bson::doc! { "$addToSet": { "labels": { "$each": ["x"] } } });
    /// assert!(set.guard.contains_key("$expr"));
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn push_all(&self, items: &[C::Item]) -> Update<M>
    where
        P: OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        let items: Result<Vec<Bson>> = items
            .iter()
            .map(|item| value_to_bson(item, M::NAME, self.name()))
            .collect();
        let field = self.erase();
        let push = items.and_then(|items| {
            BoundedPush::new(&field, items)
                .map_err(|e| crate::model::codec::field_error(M::NAME, field.name(), e))
        });
        Update::from_parts(push.map(|push| Parts {
            pushes: if push.is_empty() {
                Vec::new()
            } else {
                vec![push]
            },
            ..Parts::default()
        }))
    }
}

impl<M, C, P> EmbedField<M, C, P>
where
    M: Scope,
    C: BoundedCollection,
{
    /// `{$set: {path: value}}` of the whole array (or map); more items than
    /// `max` is an [`Error::Model`] naming the field and its bound, before
    /// anything is sent.
    ///
    /// ```
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "posts")]
    /// # struct Post {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     #[embed(max = 2)]
    /// #     tags: Vec<String>,
    /// # }
    /// let f = Post::FIELDS;
    /// let two = f.tags.set(&vec!["a".to_owned(), "b".to_owned()]);
    /// assert_eq!(two.into_document()?, bson::doc! { "$set": { "tags": ["a", "b"] } });
    /// let three = f.tags.set(&vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]);
    /// assert!(three.into_document().unwrap_err().to_string().contains("at most 2"));
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn set(&self, value: &C) -> Update<M>
    where
        C: Serialize,
        P: OutsideArrays + OutsideBuckets<M>,
        M: Updatable,
        P: OutsideVariants,
    {
        let name = self.name();
        let max = self.max();
        let value = value_to_bson(value, M::NAME, name).and_then(|value| {
            let len = match &value {
                Bson::Array(items) => items.len(),
                Bson::Document(map) => map.len(),
                _ => 0,
            };
            if len > max as usize {
                return Err(Error::Model(format!(
                    "`{}.{name}` holds at most {max} items; the update sets {len}",
                    M::NAME
                )));
            }
            Ok(value)
        });
        Update::op("$set", name, value)
    }
}
