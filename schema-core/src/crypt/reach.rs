//! How a filter's or an update's key (a dotted path) stands to a model's
//! encrypted fields: the field itself, a path below it, or a sub-document
//! holding it.

use crate::model::encrypted::EncryptedSpec;

/// How a filter's or an update's key stands to an encrypted field.
pub(super) enum Reach {
    /// The field itself.
    Is,
    /// A path below it (inside its ciphertext).
    Below,
    /// A sub-document (or array) that holds it.
    Holds,
}

/// The first encrypted field `key` (a dotted path) reaches, and how.
pub(super) fn reach(
    key: &str,
    fields: &'static [EncryptedSpec],
) -> Option<(&'static EncryptedSpec, Reach)> {
    fields.iter().find_map(|f| {
        if key == f.path {
            Some((f, Reach::Is))
        } else if key_below(key, &f.path) {
            Some((f, Reach::Below))
        } else if key_below(&f.path, key) {
            Some((f, Reach::Holds))
        } else {
            None
        }
    })
}

/// Whether `key` is a dotted path below `path` (`ssn.x`, `card.0`).
pub(super) fn key_below(key: &str, path: &str) -> bool {
    key.strip_prefix(path)
        .is_some_and(|rest| rest.starts_with('.'))
}
