//! What an encryption operation is about, for its errors, and
//! libmongocrypt's account of a failure.

use crate::error::Error;
use crate::model::encrypted::EncryptedSpec;
use crate::model::Document;

/// What an operation is about, for its errors: the model and field when a
/// model's field is concerned, and the data key.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Subject<'a> {
    pub(crate) model: Option<&'static str>,
    pub(crate) field: Option<&'a str>,
    pub(crate) key: &'a str,
}

impl Subject<'_> {
    /// The error of `action` on this subject.
    pub(crate) fn failed(&self, action: &'static str, reason: impl Into<String>) -> Error {
        Error::Encryption {
            action,
            model: self.model,
            field: self.field.map(str::to_owned),
            key: self.key.to_owned(),
            reason: reason.into(),
        }
    }
}

/// libmongocrypt's account of a failure, without its kind and code.
pub(crate) fn reason(err: &mongocrypt::error::Error) -> String {
    match &err.message {
        Some(message) if !message.is_empty() => message.clone(),
        _ => format!("{:?}", err.kind),
    }
}

/// What an operation on `field` of `M` is about.
pub(super) fn subject<M: Document>(field: &'static EncryptedSpec) -> Subject<'static> {
    Subject {
        model: Some(M::NAME),
        field: Some(&field.path),
        key: &field.key,
    }
}
