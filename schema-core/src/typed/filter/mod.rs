//! Typed filters: [`Filter<M>`] is a query over the documents of model `M`,
//! built from the field constants (`Post::FIELDS.title.eq(&t)`) and combined
//! with [`and`](Filter::and), [`or`](Filter::or), [`not`](Filter::not) (or
//! `&`, `|`, `!`).
//!
//! The value given to a comparison must have the field's type (or, on an
//! `Option<T>` field, `T`), which the compiler checks. A value that has no
//! BSON form (a `u64` above `i64::MAX`) is never sent as `null`: the filter
//! carries an [`Error::Serialize`] naming the field,
//! returned by [`into_document`](Filter::into_document) and by every
//! [`Repo`](crate::Repo) method given the filter, before anything is sent.
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
//!     #[serde(rename = "likeCount")]
//!     likes: i64,
//!     draft: Option<bool>,
//! }
//!
//! let f = Post::FIELDS;
//! let popular = f.likes.gte(&100) & f.likes.lt(&1000) & !f.draft.eq(&true);
//! assert_eq!(
//!     popular.into_document()?,
//!     bson::doc! {
//!         "likeCount": { "$gte": 100_i64, "$lt": 1000_i64 },
//!         "$nor": [{ "draft": true }],
//!     }
//! );
//! # Ok::<(), schema_core::Error>(())
//! ```
//!
//! A filter can be read back as a tree ([`Filter::node`]): every
//! [`Predicate`] gives its stored path and the [`PredicateKind`] (equality,
//! range or other) that decides whether an index can serve it.

mod node;

use std::marker::PhantomData;

use bson::{Bson, Document as BsonDocument};

use crate::error::{Error, Result};

pub use node::{Node, Op, Predicate, PredicateKind};

/// A query over the documents of model `M` (see the module docs).
///
/// Built by the typed fields, combined with [`and`](Self::and) (`&`),
/// [`or`](Self::or) (`|`) and [`not`](Self::not) (`!`); a plain
/// `bson::Document` converts into one for raw access.
#[must_use = "a filter does nothing until a helper runs it"]
pub struct Filter<M> {
    node: Result<Node>,
    _model: PhantomData<fn() -> M>,
}

impl<M> Filter<M> {
    /// Matches every document (`{}`).
    ///
    /// ```
    /// # use schema_core::Filter;
    /// # struct Post;
    /// assert_eq!(Filter::<Post>::all().into_document()?, bson::doc! {});
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn all() -> Self {
        Self::from_node(Ok(Node::All))
    }

    pub(crate) fn from_node(node: Result<Node>) -> Self {
        Filter {
            node,
            _model: PhantomData,
        }
    }

    pub(crate) fn predicate(path: &'static str, op: Op, value: Result<Bson>) -> Self {
        Self::from_node(value.map(|value| Node::Predicate(Predicate { path, op, value })))
    }

    /// The tree of the filter, or the error of a value in it that has no
    /// BSON form.
    pub fn node(&self) -> std::result::Result<&Node, &Error> {
        self.node.as_ref()
    }

    /// The tree, or the error of a value in it.
    pub fn into_node(self) -> Result<Node> {
        self.node
    }

    /// The document sent to the server, or why a value in it could not be
    /// serialized.
    pub fn into_document(self) -> Result<BsonDocument> {
        self.node.map(Node::into_document)
    }

    /// Both this and `other` (`self & other`). Conditions on distinct
    /// fields share one document; anything else goes in `$and`.
    ///
    /// ```
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "posts")]
    /// # struct Post {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     title: String,
    /// #     likes: i64,
    /// # }
    /// let f = Post::FIELDS;
    /// let hello = f.title.eq(&"Hello".to_owned()).and(f.likes.gt(&3));
    /// assert_eq!(
    ///     hello.into_document()?,
    ///     bson::doc! { "title": "Hello", "likes": { "$gt": 3_i64 } }
    /// );
    /// let twice = f.likes.gt(&3).and(f.likes.gt(&5));
    /// assert_eq!(
    ///     twice.into_document()?,
    ///     bson::doc! { "$and": [{ "likes": { "$gt": 3_i64 } }, { "likes": { "$gt": 5_i64 } }] }
    /// );
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn and(self, other: Filter<M>) -> Self {
        and([self, other])
    }

    /// This or `other` (`self | other`): `$or`.
    ///
    /// ```
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "posts")]
    /// # struct Post {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     likes: i64,
    /// # }
    /// let f = Post::FIELDS;
    /// let either = f.likes.lt(&1) | f.likes.gt(&100);
    /// assert_eq!(
    ///     either.into_document()?,
    ///     bson::doc! { "$or": [{ "likes": { "$lt": 1_i64 } }, { "likes": { "$gt": 100_i64 } }] }
    /// );
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    pub fn or(self, other: Filter<M>) -> Self {
        or([self, other])
    }

    /// Every document this one does not match (`!self`): `$nor`, so a
    /// document without the field is matched by `!f.x.eq(&v)`.
    ///
    /// ```
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[document(collection = "posts")]
    /// # struct Post {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     likes: i64,
    /// # }
    /// let few = Post::FIELDS.likes.gte(&10).not();
    /// assert_eq!(few.into_document()?, bson::doc! { "$nor": [{ "likes": { "$gte": 10_i64 } }] });
    /// # Ok::<(), schema_core::Error>(())
    /// ```
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Self {
        not(self)
    }
}

/// Every one of `filters` (`{}` when there is none).
///
/// ```
/// # use schema_core::prelude::*;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Document, Serialize, Deserialize)]
/// # #[document(collection = "posts")]
/// # struct Post {
/// #     #[serde(rename = "_id")]
/// #     id: String,
/// #     likes: i64,
/// # }
/// let f = Post::FIELDS;
/// let between = schema_core::filter::and([f.likes.gte(&1), f.likes.lte(&9)]);
/// assert_eq!(
///     between.into_document()?,
///     bson::doc! { "likes": { "$gte": 1_i64, "$lte": 9_i64 } }
/// );
/// # Ok::<(), schema_core::Error>(())
/// ```
pub fn and<M>(filters: impl IntoIterator<Item = Filter<M>>) -> Filter<M> {
    Filter::from_node(combine(filters, true))
}

/// At least one of `filters` (nothing when there is none).
///
/// ```
/// # use schema_core::prelude::*;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Document, Serialize, Deserialize)]
/// # #[document(collection = "posts")]
/// # struct Post {
/// #     #[serde(rename = "_id")]
/// #     id: String,
/// #     likes: i64,
/// # }
/// let f = Post::FIELDS;
/// let any = schema_core::filter::or([f.likes.eq(&1), f.likes.eq(&2)]);
/// assert_eq!(
///     any.into_document()?,
///     bson::doc! { "$or": [{ "likes": 1_i64 }, { "likes": 2_i64 }] }
/// );
/// let none = schema_core::filter::or(Vec::<Filter<Post>>::new());
/// assert_eq!(none.into_document()?, bson::doc! { "_id": { "$in": [] } });
/// # Ok::<(), schema_core::Error>(())
/// ```
pub fn or<M>(filters: impl IntoIterator<Item = Filter<M>>) -> Filter<M> {
    Filter::from_node(combine(filters, false))
}

/// Every document `filter` does not match (`$nor`).
///
/// ```
/// # use schema_core::prelude::*;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Document, Serialize, Deserialize)]
/// # #[document(collection = "posts")]
/// # struct Post {
/// #     #[serde(rename = "_id")]
/// #     id: String,
/// #     likes: i64,
/// # }
/// let zero = schema_core::filter::not(Post::FIELDS.likes.ne(&0));
/// assert_eq!(zero.into_document()?, bson::doc! { "$nor": [{ "likes": { "$ne": 0_i64 } }] });
/// # Ok::<(), schema_core::Error>(())
/// ```
pub fn not<M>(filter: Filter<M>) -> Filter<M> {
    Filter::from_node(filter.node.map(|node| Node::Not(Box::new(node))))
}

/// The nodes of `filters` under one `And` (`all`) or `Or`, flattening children of the same
/// kind; the first error of any of them otherwise.
fn combine<M>(filters: impl IntoIterator<Item = Filter<M>>, all: bool) -> Result<Node> {
    let mut nodes = Vec::new();
    for filter in filters {
        match (all, filter.node?) {
            (true, Node::And(inner)) | (false, Node::Or(inner)) => nodes.extend(inner),
            (true, Node::All) => {}
            (_, node) => nodes.push(node),
        }
    }
    Ok(if all {
        Node::And(nodes)
    } else {
        Node::Or(nodes)
    })
}

impl<M> From<BsonDocument> for Filter<M> {
    /// A raw filter, sent as it is.
    fn from(doc: BsonDocument) -> Self {
        Filter::from_node(Ok(Node::Raw(doc)))
    }
}

impl<M> std::ops::BitAnd for Filter<M> {
    type Output = Filter<M>;
    fn bitand(self, rhs: Filter<M>) -> Filter<M> {
        self.and(rhs)
    }
}

impl<M> std::ops::BitOr for Filter<M> {
    type Output = Filter<M>;
    fn bitor(self, rhs: Filter<M>) -> Filter<M> {
        self.or(rhs)
    }
}

impl<M> std::ops::Not for Filter<M> {
    type Output = Filter<M>;
    fn not(self) -> Filter<M> {
        not(self)
    }
}

impl<M> std::fmt::Debug for Filter<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.node {
            Ok(node) => write!(f, "Filter({})", node.to_document()),
            Err(e) => write!(f, "Filter(error: {e})"),
        }
    }
}
