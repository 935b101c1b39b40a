//! The encryption handle a repository (or a schema, the copies, a
//! follower) holds, if any; what it does is in `seal`, `update`, `widen`
//! and `anywhere`.

use super::handle::Encryption;
use super::subject::{subject, Subject};
use crate::error::Result;
use crate::model::encrypted::EncryptedSpec;
use crate::model::Document;

/// The encryption handle a repository holds, if any.
#[derive(Clone, Default)]
pub(crate) struct Keys(pub(super) Option<Encryption>);

impl Keys {
    /// A repository's keys: `crypt`'s.
    pub(crate) fn new(crypt: Encryption) -> Self {
        Keys(Some(crypt))
    }

    /// The handle, or the error of `action` on `field` of `M` without one.
    pub(super) fn handle<M: Document>(
        &self,
        action: &'static str,
        field: &'static EncryptedSpec,
    ) -> Result<&Encryption> {
        self.handle_for(subject::<M>(field), action)
    }

    /// The handle, or the error of `action` on `subject` without one.
    pub(super) fn handle_for(
        &self,
        subject: Subject<'_>,
        action: &'static str,
    ) -> Result<&Encryption> {
        self.0.as_ref().ok_or_else(|| {
            subject.failed(
                action,
                "no encryption handle was given: give one with `with_encryption(..)` (of the \
                 `Repo`, the `Copies` or the `CopyFollower`); nothing was sent",
            )
        })
    }
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(crypt) => write!(f, "{crypt:?}"),
            None => f.write_str("no encryption"),
        }
    }
}
