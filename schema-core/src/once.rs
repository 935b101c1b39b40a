//! What is computed once per model type and kept for the life of the
//! process: the declared indexes a query helper consults on every call
//! (`M::indexes()` builds them anew each time it is called), the index
//! guard's view of a model.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use crate::index::IndexSpec;
use crate::model::Document;

type Kept = &'static (dyn Any + Send + Sync);

/// The `T` made by `make` for model `M`, made on first use (one value per
/// `(M, T)`, leaked on purpose: there is one per model type).
pub(crate) fn per_model<M: 'static, T: Send + Sync + 'static>(
    make: impl FnOnce() -> T,
) -> &'static T {
    static KEPT: OnceLock<RwLock<HashMap<(TypeId, TypeId), Kept>>> = OnceLock::new();
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
