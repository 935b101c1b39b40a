//! The tree of a typed filter: [`Node`], its [`Predicate`]s (a stored path,
//! an [`Op`] and its operand) and how an index can serve each
//! ([`PredicateKind`]), and the document a tree is sent as.

use bson::{doc, Bson, Document as BsonDocument};

/// The tree of a [`Filter`](super::Filter): what the index guard and other
/// readers of a query look at.
/// [`Filter::into_document`](super::Filter::into_document) turns it into the
/// document sent.
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
