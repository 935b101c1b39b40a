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

use std::marker::PhantomData;

use bson::{doc, Bson, Document as BsonDocument};

use crate::error::{Error, Result};

/// A query over the documents of model `M` (see the [module docs](self)).
///
/// Built by the typed fields, combined with [`and`](Self::and) (`&`),
/// [`or`](Self::or) (`|`) and [`not`](Self::not) (`!`); a plain
/// `bson::Document` converts into one for raw access.
#[must_use = "a filter does nothing until a helper runs it"]
pub struct Filter<M> {
    node: Result<Node>,
    _model: PhantomData<fn() -> M>,
}

/// The tree of a [`Filter`]: what the index guard and other readers of a
/// query look at. [`Filter::into_document`] turns it into the document sent.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Node {
    /// Matches every document (`{}`).
    All,
    /// One condition on one field.
    Predicate(Predicate),
    /// `{path: {$elemMatch: filter}}`: some item of the array at `path`
    /// matches `filter`, whose paths are relative to the item.
    ElemMatch {
        /// The stored path of the array.
        path: &'static str,
        /// The condition on one item.
        filter: Box<Node>,
    },
    /// Every one of these (`{}` when empty).
    And(Vec<Node>),
    /// At least one of these (nothing when empty).
    Or(Vec<Node>),
    /// Not this one (`$nor`).
    Not(Box<Node>),
    /// A document given as it is (`Filter::from(doc! {...})`): nothing is
    /// known of its shape.
    Raw(BsonDocument),
}

/// One condition: the field's stored path, the operator and its operand.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicate {
    /// The stored (dotted, for a nested field) path: `profile.displayName`.
    pub path: &'static str,
    /// The operator.
    pub op: Op,
    /// The operand: the value, the array of `$in`/`$nin`/`$all`, or the
    /// `bool` of `$exists`.
    pub value: Bson,
}

/// The operator of a [`Predicate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Op {
    /// `{path: value}` (`$eq` when the value is a document); on an array
    /// field with an item as the value ([`Field::contains`](crate::Field::contains)),
    /// some item equals it.
    Eq,
    /// `$ne`.
    Ne,
    /// `$gt`.
    Gt,
    /// `$gte`.
    Gte,
    /// `$lt`.
    Lt,
    /// `$lte`.
    Lte,
    /// `$in`.
    In,
    /// `$nin`.
    Nin,
    /// `$exists`.
    Exists,
    /// `$all` ([`Field::contains_all`](crate::Field::contains_all)).
    All,
}

/// How an index can serve a [`Predicate`] (the ESR rule: equality fields,
/// then the sort, then range fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PredicateKind {
    /// One value, or a list of values (`$eq`, `$in`, `$all`, an item of an array):
    /// an index prefix on the path serves it.
    Equality,
    /// A bounded interval of values (`$gt`, `$gte`, `$lt`, `$lte`).
    Range,
    /// Everything else (`$ne`, `$nin`, `$exists`): the index bounds are
    /// not selective.
    Other,
}

impl Op {
    /// The operator as sent (`"$gte"`).
    pub const fn operator(self) -> &'static str {
        match self {
            Op::Eq => "$eq",
            Op::Ne => "$ne",
            Op::Gt => "$gt",
            Op::Gte => "$gte",
            Op::Lt => "$lt",
            Op::Lte => "$lte",
            Op::In => "$in",
            Op::Nin => "$nin",
            Op::Exists => "$exists",
            Op::All => "$all",
        }
    }

    /// How an index can serve it.
    pub const fn kind(self) -> PredicateKind {
        match self {
            Op::Eq | Op::In | Op::All => PredicateKind::Equality,
            Op::Gt | Op::Gte | Op::Lt | Op::Lte => PredicateKind::Range,
            Op::Ne | Op::Nin | Op::Exists => PredicateKind::Other,
        }
    }
}

impl Predicate {
    /// How an index can serve it.
    pub const fn kind(&self) -> PredicateKind {
        self.op.kind()
    }
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

impl Node {
    /// The document sent to the server.
    pub fn to_document(&self) -> BsonDocument {
        self.clone().into_document()
    }

    /// The document sent to the server, without copying the values.
    pub fn into_document(self) -> BsonDocument {
        match self {
            Node::All => BsonDocument::new(),
            Node::Raw(doc) => doc,
            Node::Predicate(predicate) => {
                let (path, value) = predicate.into_condition();
                doc! { path: value }
            }
            Node::ElemMatch { path, filter } => {
                doc! { path: { "$elemMatch": filter.into_document() } }
            }
            // The common conjunction, one condition on each of distinct
            // fields: one document, with no document per condition.
            Node::And(nodes) if distinct_predicates(&nodes) => {
                let mut out = BsonDocument::new();
                for node in nodes {
                    if let Node::Predicate(predicate) = node {
                        let (path, value) = predicate.into_condition();
                        out.insert(path, value);
                    }
                }
                out
            }
            Node::And(nodes) => {
                let docs: Vec<BsonDocument> = nodes.into_iter().map(Node::into_document).collect();
                if mergeable(&docs) {
                    let mut out = BsonDocument::new();
                    for doc in docs {
                        for (key, value) in doc {
                            match (out.get_mut(&key), value) {
                                (Some(Bson::Document(held)), Bson::Document(more)) => {
                                    held.extend(more)
                                }
                                (_, value) => {
                                    out.insert(key, value);
                                }
                            }
                        }
                    }
                    out
                } else {
                    doc! { "$and": docs }
                }
            }
            // No document matches: every document has an `_id`, in no empty list.
            Node::Or(nodes) if nodes.is_empty() => doc! { "_id": { "$in": [] } },
            Node::Or(nodes) => {
                let docs: Vec<BsonDocument> = nodes.into_iter().map(Node::into_document).collect();
                doc! { "$or": docs }
            }
            Node::Not(node) => doc! { "$nor": [node.into_document()] },
        }
    }
}

impl Predicate {
    /// The stored path and what it is tested with: the value (`{$eq:
    /// value}` for a document, which would read as a whole sub-document),
    /// or `{op: value}`.
    fn into_condition(self) -> (&'static str, Bson) {
        let value = match (self.op, self.value) {
            (Op::Eq, value @ Bson::Document(_)) => Bson::Document(doc! { "$eq": value }),
            (Op::Eq, value) => value,
            (op, value) => Bson::Document(doc! { op.operator(): value }),
        };
        (self.path, value)
    }
}

/// Whether every one of `nodes` is a [`Predicate`], each on a path of its
/// own (none a `$` key): conditions that share one document as they are.
fn distinct_predicates(nodes: &[Node]) -> bool {
    nodes.iter().enumerate().all(|(i, node)| match node {
        Node::Predicate(p) => {
            !p.path.starts_with('$')
                && nodes[..i]
                    .iter()
                    .all(|n| !matches!(n, Node::Predicate(q) if q.path == p.path))
        }
        _ => false,
    })
}

/// Whether the conditions of `docs` fit in one document, when no two say
/// the same thing: a path may repeat only with distinct operators
/// (`{a: {$gt: 1, $lt: 5}}`).
fn mergeable(docs: &[BsonDocument]) -> bool {
    let mut seen: Vec<(&str, &Bson)> = Vec::new();
    for doc in docs {
        for (key, value) in doc {
            for (held_key, held) in seen.iter().filter(|(k, _)| *k == key.as_str()) {
                let (Bson::Document(held), Bson::Document(more)) = (held, value) else {
                    return false;
                };
                if held_key.starts_with('$')
                    || !operators_only(held)
                    || !operators_only(more)
                    || more.keys().any(|k| held.contains_key(k))
                {
                    return false;
                }
            }
            seen.push((key, value));
        }
    }
    true
}

fn operators_only(doc: &BsonDocument) -> bool {
    !doc.is_empty() && doc.keys().all(|k| k.starts_with('$'))
}
