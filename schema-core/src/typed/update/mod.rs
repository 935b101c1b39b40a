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

mod embed;
mod field;

use std::marker::PhantomData;

use bson::{doc, Bson, Document as BsonDocument};

use crate::error::{Error, Result};
use crate::typed::push::BoundedPush;

pub use field::{DateField, Number, NumericField, Optional};

/// One update document of model `M` (see the module docs).
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

    /// An update that fails with `err` when a helper takes it.
    pub(crate) fn failed(err: Error) -> Self {
        Self::from_parts(Err(err))
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

    /// The update document and its guard (see `UpdateParts`), or the
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
