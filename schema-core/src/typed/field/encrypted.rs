//! The field constant of an `#[encrypt(...)]` field: [`EncryptedField`],
//! whose algorithm (`Deterministic` or `Random`, a type) decides what it
//! offers. A deterministic field filters by equality (`eq`, `ne`,
//! `is_in`), whose operand the repository encrypts before sending; a
//! random one offers nothing to filter on. Both are `set` (the value
//! encrypted when sent) and an `Option` one `unset`. Neither has an order
//! (no range, no sort) nor an update the server computes (`inc`, ...): the
//! server holds ciphertext. Each
//! refused method names its rule ([`rules`](crate::rules)), so the
//! compiler's first line says why and what to write.

use std::marker::PhantomData;

use serde::Serialize;

use super::{Compare, Field, Scope};
use crate::model::Updatable;
use crate::typed::filter::Filter;
use crate::typed::update::{NumericField, Optional, Update};

/// `#[encrypt(deterministic)]`: the same value gives the same ciphertext,
/// so equality filters work (and equal values are seen to be equal).
#[derive(Debug, Clone, Copy)]
pub struct Deterministic;

/// `#[encrypt(random)]`: every encryption differs; nothing to filter on.
#[derive(Debug, Clone, Copy)]
pub struct Random;

/// An encrypted field of model `M` holding a `T`, encrypted with `A`
/// ([`Deterministic`] or [`Random`]).
pub struct EncryptedField<M, T, A> {
    field: Field<M, T>,
    _algorithm: PhantomData<fn() -> A>,
}

impl<M, T, A> EncryptedField<M, T, A> {
    /// An encrypted field stored under `name`.
    pub const fn new(name: &'static str) -> Self {
        EncryptedField {
            field: Field::new(name),
            _algorithm: PhantomData,
        }
    }

    /// The stored name.
    pub const fn name(&self) -> &'static str {
        self.field.name()
    }
}

impl<M, T, A> Clone for EncryptedField<M, T, A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, T, A> Copy for EncryptedField<M, T, A> {}

impl<M, T, A> std::fmt::Debug for EncryptedField<M, T, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EncryptedField({})", self.name())
    }
}

/// The rule of equality filters on an encrypted field: only a
/// deterministic one has them.
#[diagnostic::on_unimplemented(
    message = "a `#[encrypt(random)]` field cannot be filtered on: its ciphertext differs every time, so no stored value equals the operand",
    label = "a filter on a random-encrypted field",
    note = "to find documents by this field, declare it `#[encrypt(deterministic)]` (equal values then have equal ciphertexts, which the server can see); otherwise filter on another field"
)]
pub trait Equality {}
impl Equality for Deterministic {}

/// The rule of ranges and sorts on an encrypted field: none has them.
#[diagnostic::on_unimplemented(
    message = "an encrypted field has no order: no range filter (`gt`, `gte`, `lt`, `lte`) and no sort on it",
    label = "a range or a sort on an encrypted field",
    note = "the server holds ciphertext, whose order says nothing of the values: filter a `#[encrypt(deterministic)]` field by equality (`eq`, `ne`, `is_in`), and sort or range on a field that is not encrypted"
)]
pub trait Ordered {}

/// The rule of updates computed by the server on an encrypted field: none
/// has them.
#[diagnostic::on_unimplemented(
    message = "an encrypted field is not computed on by the server (`inc`, `mul`, `min`, `max`): it holds the field's ciphertext",
    label = "an update computed on an encrypted field",
    note = "read the document, compute the new value in the application and write it with `set` (the repository encrypts it), or `replace` the document"
)]
pub trait InPlace {}

/// Equality on a deterministic field; the repository encrypts each operand
/// before the filter is sent (the typed value as the model stores it).
impl<M: Scope, T, A> EncryptedField<M, T, A> {
    /// `{path: value}`, the value encrypted when sent.
    pub fn eq<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        A: Equality,
        T: Compare<V>,
    {
        self.field.eq(value)
    }

    /// `{path: {$ne: value}}`, the value encrypted when sent.
    pub fn ne<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        A: Equality,
        T: Compare<V>,
    {
        self.field.ne(value)
    }

    /// `{path: {$in: [values]}}`, each value encrypted when sent.
    pub fn is_in<'a, V: Serialize + ?Sized + 'a>(
        &self,
        values: impl IntoIterator<Item = &'a V>,
    ) -> Filter<M>
    where
        A: Equality,
        T: Compare<V>,
    {
        self.field.is_in(values)
    }

    /// Refused ([`Ordered`]).
    pub fn gt<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        A: Ordered,
        T: Compare<V>,
    {
        self.field.gt(value)
    }

    /// Refused ([`Ordered`]).
    pub fn gte<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        A: Ordered,
        T: Compare<V>,
    {
        self.field.gte(value)
    }

    /// Refused ([`Ordered`]).
    pub fn lt<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        A: Ordered,
        T: Compare<V>,
    {
        self.field.lt(value)
    }

    /// Refused ([`Ordered`]).
    pub fn lte<V: Serialize + ?Sized>(&self, value: &V) -> Filter<M>
    where
        A: Ordered,
        T: Compare<V>,
    {
        self.field.lte(value)
    }

    /// `{$set: {path: value}}`, the value encrypted when sent (with the
    /// field's algorithm) by the repository's update helpers.
    pub fn set<V: Serialize + ?Sized>(&self, value: &V) -> Update<M>
    where
        T: Compare<V>,
        M: Updatable,
    {
        self.field.set(value)
    }

    /// Refused ([`InPlace`]).
    pub fn inc(&self, _by: &T::Number) -> Update<M>
    where
        A: InPlace,
        T: NumericField,
    {
        refused(self.name())
    }

    /// `{$unset: {path: ""}}` of an `Option` field: removes it (nothing to
    /// encrypt).
    pub fn unset(&self) -> Update<M>
    where
        T: Optional,
        M: Updatable,
    {
        self.field.unset()
    }
}

/// The update a refused method would give (never built: no algorithm has
/// the rule its bound names).
fn refused<M: Scope>(name: &str) -> Update<M> {
    Update::failed(crate::error::Error::Encryption {
        action: "update",
        model: Some(M::NAME),
        field: Some(name.to_owned()),
        key: String::new(),
        reason: "an encrypted field is written whole with its document".to_owned(),
    })
}
