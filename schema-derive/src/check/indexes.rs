//! The rules of the indexes a model declares (`index(...)`, references,
//! many-to-many arrays): on a root document, keyed by stored fields, a TTL
//! index on one key, no two alike, none on `_id` alone. The rules of index
//! kinds (wildcard, text, hashed) are `index_kinds`'.

use std::collections::HashMap;

use super::keys::check_field_key;
use crate::ast::{key_text, Derive, Input, Origin};
use crate::ctxt::Ctxt;

/// An index belongs to a root document: a sub-document is stored inside its
/// parent's collection. On `#[derive(Embedded)]`, `collection` says the type
/// is also a root document (`#[derive(Document, Embedded)]`), whose derive
/// creates the indexes; without it, the first `index` is reported.
pub(super) fn indexes_are_on_documents(cx: &Ctxt, input: &Input) {
    if input.derive != Derive::Embedded || input.attrs.collection.is_some() {
        return;
    }
    if let Some(index) = input.attrs.indexes.first() {
        cx.error_at(
            index.span,
            "`index` belongs to a root document: a sub-document is stored inside its parent's collection (add `#[derive(Document)]` and `collection = \"...\"`, or declare the index on the parent)",
        );
    }
}

/// Index keys and partial filter keys name fields that exist and are stored.
pub(super) fn index_keys_are_fields(cx: &Ctxt, input: &Input) {
    for index in &input.attrs.indexes {
        let mut seen = HashMap::new();
        for key in &index.keys {
            if check_field_key(cx, input, &key.name) {
                let stored = input.stored_key(&key.name);
                if seen.insert(stored.clone(), ()).is_some() {
                    cx.error_at(
                        key.name.span(),
                        format!("`{stored}` appears twice in this index"),
                    );
                }
            }
        }
        for cond in &index.partial {
            check_field_key(cx, input, &cond.key);
        }
    }
}

/// The server expires documents by one date field: a TTL index has one key.
pub(super) fn ttl_index_has_one_key(cx: &Ctxt, input: &Input) {
    for index in &input.attrs.indexes {
        if let Some((_, span)) = index.expire_after {
            if index.keys.len() > 1 {
                cx.error_at(
                    span,
                    format!(
                        "`expire_after` needs exactly one key: a TTL index cannot be compound (this one has {})",
                        index.keys.len()
                    ),
                );
            }
        }
    }
}

/// Two indexes on the same keys (or with the same name) cannot both exist on
/// the server; the second is reported, naming the first.
pub(super) fn indexes_are_distinct(cx: &Ctxt, input: &Input) {
    let indexes = input.indexes();
    // A reference's index also stands for its keys without the `_id`
    // tie-break: it serves every query an index on those would.
    let mut by_keys: HashMap<String, (&Origin, Option<String>)> = HashMap::new();
    let mut by_name: HashMap<&str, &Origin> = HashMap::new();
    for index in &indexes {
        let keys = key_text(&index.keys);
        let declared = key_text(index.declared_keys());
        if let Some((first, whole)) = by_keys.get(&keys).or_else(|| by_keys.get(&declared)) {
            let whole = whole
                .as_ref()
                .map(|whole| format!(" (its index is {whole}, `_id` last to order ties)"))
                .unwrap_or_default();
            cx.error_at(
                index.span,
                format!(
                    "two indexes on the same keys {declared}: {} here and {}{whole} before it; keep one (options such as `unique` go on the one you keep)",
                    index.origin.describe(),
                    first.describe()
                ),
            );
            continue;
        }
        if index.tie_break {
            by_keys.insert(declared, (&index.origin, Some(keys.clone())));
        }
        by_keys.insert(keys, (&index.origin, None));
        if let Some(first) = by_name.get(index.name.as_str()) {
            cx.error_at(
                index.name_span.unwrap_or(index.span),
                format!(
                    "two indexes named `{}`: {} here and {} before it; give one another `name`",
                    index.name,
                    index.origin.describe(),
                    first.describe()
                ),
            );
            continue;
        }
        by_name.insert(&index.name, &index.origin);
    }
}

/// The server always keeps a unique index on `_id`.
pub(super) fn id_is_not_indexed_again(cx: &Ctxt, input: &Input) {
    if input.derive != Derive::Document {
        return;
    }
    for index in input.indexes() {
        if index.keys.len() == 1 && index.keys[0].0 == "_id" && index.partial.is_empty() {
            cx.error_at(
                index.span,
                "the server already indexes `_id` (unique); remove this index",
            );
        }
    }
}

