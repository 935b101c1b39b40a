//! A pipeline on a model with encrypted fields: what the server cannot do
//! with ciphertext is refused before sending. A group key or accumulator
//! on an encrypted field does not compile (`NotEncrypted`); this is the
//! check at run time, for the paths the compiler does not see (a group of
//! an unwound array's items, a path into a sub-document encrypted whole).

use crate::error::{Error, Result};
use crate::model::Document;

/// The group of `row` reads none of `M`'s encrypted fields, nor a path
/// below or above one.
pub(super) fn no_sealed_group<M: Document>(
    row: &'static str,
    paths: &[&'static str],
) -> Result<()> {
    let fields = crate::model::cache::sealed::<M>();
    for path in paths {
        if let Some((field, _)) = crate::model::encrypted::reach(path, fields) {
            return Err(refused::<M>(format!(
                "`{row}` reads `{path}`, and `{}` is encrypted: the server holds its ciphertext, \
                 which it cannot group, count, sum or compare; group on plain fields",
                field.path
            )));
        }
    }
    Ok(())
}

fn refused<M: Document>(reason: String) -> Error {
    Error::AggregateRefused {
        collection: M::COLLECTION,
        reason,
    }
}
