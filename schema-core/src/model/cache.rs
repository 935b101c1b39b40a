//! What is computed once per model type and kept for the life of the
//! process: the declared indexes and the validator a query helper consults
//! on every call (`M::indexes()` and `M::json_schema()` build them anew each
//! time they are called), the index guard's view of a model.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{OnceLock, RwLock};

use crate::model::index::IndexSpec;
use crate::model::Document;

type Kept = &'static (dyn Any + Send + Sync);

/// Hashes the keys of the kept values, pairs of `TypeId`s: each is a hash of
/// its type already, so a multiply mixes them (SipHash, the map's default,
/// costs more than the rest of a lookup, on every query a helper sends).
#[derive(Default)]
struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.write_u64(u64::from(*byte));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(23) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type KeptMap = HashMap<(TypeId, TypeId), Kept, BuildHasherDefault<TypeIdHasher>>;

/// The `T` made by `make` for model `M`, made on first use (one value per
/// `(M, T)`, leaked on purpose: there is one per model type).
pub(crate) fn per_model<M: 'static, T: Send + Sync + 'static>(
    make: impl FnOnce() -> T,
) -> &'static T {
    static KEPT: OnceLock<RwLock<KeptMap>> = OnceLock::new();
    let kept = KEPT.get_or_init(RwLock::default);
    let key = (TypeId::of::<M>(), TypeId::of::<T>());
    let found = kept.read().ok().and_then(|k| k.get(&key).copied());
    let value: Kept = match found {
        Some(value) => value,
        None => {
            let made: Kept = Box::leak(Box::new(make()));
            match kept.write() {
                Ok(mut k) => *k.entry(key).or_insert(made),
                Err(_) => made,
            }
        }
    };
    match value.downcast_ref::<T>() {
        Some(value) => value,
        // The key holds `T`'s `TypeId`: always a `T`.
        None => unreachable!("a value kept under another type's key"),
    }
}

/// `M::indexes()`, made once.
pub(crate) fn indexes<M: Document>() -> &'static [IndexSpec] {
    per_model::<M, Vec<IndexSpec>>(M::indexes)
}

/// `M::json_schema()`, made once: what a page after the first reads to learn
/// whether its sort key may be null.
pub(crate) fn json_schema<M: Document>() -> &'static bson::Document {
    per_model::<M, bson::Document>(M::json_schema)
}

/// `M::encrypted()`, made once: what the repository encrypts and
/// decrypts on every write, read and filter of `M`.
pub(crate) fn sealed<M: Document>() -> &'static [crate::model::encrypted::EncryptedSpec] {
    per_model::<M, Vec<crate::model::encrypted::EncryptedSpec>>(M::encrypted)
}

/// Whether a stored document of `M` may hold ciphertext to decrypt: `M`
/// declares encrypted fields, or names earlier shapes (whose fields may
/// have been encrypted).
pub(crate) fn may_be_sealed<M: Document>() -> bool {
    !sealed::<M>().is_empty() || M::VERSIONS.is_some_and(|v| !v.older.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct A;
    struct B;

    #[test]
    fn one_value_per_model_and_type() {
        let a = per_model::<A, u32>(|| 1);
        assert_eq!(*per_model::<A, u32>(|| 2), 1);
        assert!(std::ptr::eq(a, per_model::<A, u32>(|| 3)));
        assert_eq!(*per_model::<B, u32>(|| 4), 4);
        assert_eq!(per_model::<A, String>(|| "a".into()), "a");
    }
}
