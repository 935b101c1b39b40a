//! What a copy may hold and follow, for the derive's checks of
//! `#[copy]` and `#[snapshot]` (see [`copies`](super::copies)): the
//! holder's type against the source field's, and an encrypted source's
//! copy encrypted too.

use crate::typed::field::EncryptedField;

/// A type that can hold a copy of one `T` (the source field's type, or an
/// `Option` of it). Checked by the derive for `#[copy]` through a reference
/// and `#[snapshot]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a copy of a `{T}`: a copy has the source field's type, or an `Option` of it",
    label = "the source field is a `{T}`"
)]
pub trait CopyOne<T> {}
impl<T> CopyOne<T> for T {}
impl<T> CopyOne<T> for Option<T> {}

/// A type that can hold the copies of many `T`s (a `Vec` of the source
/// field's type). Checked by the derive for `#[copy]` through a link.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold the copies of many `{T}`s: a copy through a link is a `Vec` of the source field's type",
    label = "the source field is a `{T}`"
)]
pub trait CopyMany<T> {}
impl<T> CopyMany<T> for Vec<T> {}

/// A field a copy can follow: a model's field of type `T`, in clear or
/// encrypted (whose copy must be encrypted too).
#[diagnostic::on_unimplemented(
    message = "the copy's type is not the source field's: the source is `{Self}`, the copy holds `{T}`",
    label = "the source field, of another type",
    note = "give the copy the source field's type (or an `Option` of it; through a link, a `Vec` of it)"
)]
pub trait CopySource<M, T> {
    /// Whether the source field is encrypted.
    const ENCRYPTED: bool;
}
macro_rules! copy_source {
    ($ty:ty => $value:ty) => {
        impl<A, B, C> CopySource<A, $value> for $ty {
            const ENCRYPTED: bool = false;
        }
    };
}
crate::typed::field::for_each_plain_field!(copy_source);
impl<M, T, A> CopySource<M, T> for EncryptedField<M, T, A> {
    const ENCRYPTED: bool = true;
}

/// For generated code: `H` holds a copy of the field `_source` (a type
/// mismatch here names the holder's type and the source field's).
pub fn assert_copy_one<H: CopyOne<T>, M, T, S: CopySource<M, T>>(_source: &S) {}

/// For generated code: `H` holds the copies of many `_source` values.
pub fn assert_copy_many<H: CopyMany<T>, M, T, S: CopySource<M, T>>(_source: &S) {}

/// For generated code: whether the field `_source` is encrypted (so its
/// copy must be).
pub const fn source_encrypted<M, T, S: CopySource<M, T>>(_source: &S) -> bool {
    S::ENCRYPTED
}
