//! Typed field constants: the stored name of a field, with what the model
//! says about it. `Post::FIELDS.author_id.name()` is `"authorId"` when the field
//! is renamed, so filters never carry a string typo.

mod compare;
mod embed;
mod encrypted;
mod link;
mod reference;
mod tag;

use std::marker::PhantomData;

use crate::model::Document as Model;
use crate::typed::path::{Below, Descend, Nested, NestedFields, Owns, Prefix};

pub use compare::{Compare, CustomSerializer, Elem, Typed};
pub use embed::{EmbedField, Keep};
pub use encrypted::{Deterministic, EncryptedField, Equality, InPlace, Ordered, Random};
pub use link::LinkField;
pub use reference::RefField;
pub use tag::{Tag, TagField};

/// Runs `$mac!(<type> => <value type>)` for every kind of a model's
/// field constant that stores a plain value (a `Field`, or a reference,
/// sub-document, link or enum-tag field, each a `Field` underneath), with
/// generics `A, B, C`: the derives' checks that take any of them (a
/// view's field, a group's operand, a copy's source) implement their
/// trait for each with it.
macro_rules! for_each_plain_field {
    ($mac:ident) => {
        $mac!($crate::typed::field::Field<A, B, C> => B);
        $mac!($crate::typed::field::RefField<A, B, C> => B);
        $mac!($crate::typed::field::EmbedField<A, B, C> => B);
        $mac!($crate::typed::field::LinkField<A, B, C> => B);
        $mac!($crate::typed::field::TagField<A, B, C> => $crate::typed::field::Tag<B>);
    };
}
pub(crate) use for_each_plain_field;

/// A field of model `M` holding a `T`, at the stored path `P` (a
/// [`Seg`](crate::typed::path::Seg) for the fields the derives generate, whose
/// sub-document fields it dereferences to; see `path`).
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

impl<M, T, P> Clone for Field<M, T, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, T, P> Copy for Field<M, T, P> {}

impl<M, T, P> std::fmt::Debug for Field<M, T, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Field({})", self.name)
    }
}

// An index key naming a nested field by its Rust path descends through
// these (see [`Descend`]).
impl<M: 'static, T: Nested, P: Prefix> Descend for Field<M, T, P> {
    type Target = T::Fields<M, Below<P, T::Count>>;
}
