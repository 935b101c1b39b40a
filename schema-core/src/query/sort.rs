//! [`Sort`]: the order of a query, from typed fields or a raw document.

use std::marker::PhantomData;

use bson::{Bson, Document as BsonDocument};

use crate::model::index::Direction;
use crate::typed::field::Field;

/// The sort of a query on `M`: keys with directions, in order.
///
/// Built from a typed field (`Post::FIELDS.at.desc()`, or
/// `Post::FIELDS.at.sorted(Direction::Desc)`) or from a raw document
/// (`doc! { "at": -1 }`); [`Find::sort`](crate::query::Find::sort) called
/// again adds keys after the ones before.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a sort does nothing until a query takes it"]
pub struct Sort<M> {
    doc: BsonDocument,
    _model: PhantomData<fn() -> M>,
}

impl<M> Sort<M> {
    /// The sort document the query sends.
    pub fn document(&self) -> &BsonDocument {
        &self.doc
    }

    /// This sort, then `other`.
    pub fn then(mut self, other: impl Into<Sort<M>>) -> Self {
        for (k, v) in other.into().doc {
            self.doc.insert(k, v);
        }
        self
    }

    pub(crate) fn into_document(self) -> BsonDocument {
        self.doc
    }
}

impl<M> From<BsonDocument> for Sort<M> {
    fn from(doc: BsonDocument) -> Self {
        Sort {
            doc,
            _model: PhantomData,
        }
    }
}

impl<M, T, P> Field<M, T, P> {
    /// This field in `direction`, to sort a query by.
    pub fn sorted(&self, direction: Direction) -> Sort<M> {
        let mut doc = BsonDocument::new();
        doc.insert(self.name(), Bson::Int32(direction.as_i32()));
        Sort::from(doc)
    }

    /// This field ascending, to sort a query by.
    pub fn asc(&self) -> Sort<M> {
        self.sorted(Direction::Asc)
    }

    /// This field descending, to sort a query by.
    pub fn desc(&self) -> Sort<M> {
        self.sorted(Direction::Desc)
    }
}

/// Refused: an encrypted field has no order
/// ([`Ordered`](crate::rules::Ordered)).
impl<M, T, A> crate::typed::field::EncryptedField<M, T, A> {
    /// Refused ([`Ordered`](crate::rules::Ordered)).
    pub fn asc(&self) -> Sort<M>
    where
        A: crate::typed::field::Ordered,
    {
        Field::<M, T>::new(self.name()).asc()
    }

    /// Refused ([`Ordered`](crate::rules::Ordered)).
    pub fn desc(&self) -> Sort<M>
    where
        A: crate::typed::field::Ordered,
    {
        Field::<M, T>::new(self.name()).desc()
    }
}
