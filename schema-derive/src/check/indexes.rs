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

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::check::testing::{assert_one, messages};

    #[test]
    fn indexes_are_on_documents() {
        let rule = super::indexes_are_on_documents;
        let embedded = parse_quote! {
            #[document(index(keys(sku = asc)), index(keys(at = desc)))]
            struct Line { sku: String, at: i64 }
        };
        assert_one(
            &messages(Derive::Embedded, &embedded, rule),
            "`index` belongs to a root document: a sub-document is stored inside its parent's collection",
        );
        assert!(messages(Derive::Document, &embedded, rule).is_empty());
        let also_a_document = parse_quote! {
            #[document(collection = "lines", index(keys(sku = asc)))]
            struct Line { sku: String }
        };
        assert!(messages(Derive::Embedded, &also_a_document, rule).is_empty());
    }

    #[test]
    fn index_keys_are_stored_fields() {
        let rule = super::index_keys_are_fields;
        let input = parse_quote! {
            #[document(index(keys(titel = asc)), index(keys(cache = asc)), index(keys(title = asc, "title" = desc)), index(keys(title = asc), partial(statuss = "active")))]
            struct Post {
                title: String,
                status: String,
                #[serde(skip)]
                cache: String,
            }
        };
        let found = messages(Derive::Document, &input, rule);
        assert_eq!(found.len(), 4, "{found:#?}");
        assert!(found[0].starts_with("no field `titel` on `Post`"));
        assert_eq!(
            found[1],
            "`cache` is not stored (serde skips it), so it cannot be indexed"
        );
        assert_eq!(found[2], "`title` appears twice in this index");
        assert!(found[3].starts_with("no field `statuss` on `Post`"));
        let fine = parse_quote! {
            #[document(index(keys(title = asc, "meta.at" = desc), partial(status = "active")))]
            struct Post { title: String, status: String }
        };
        assert!(messages(Derive::Document, &fine, rule).is_empty());
    }

    #[test]
    fn a_ttl_index_has_one_key() {
        let rule = super::ttl_index_has_one_key;
        let compound = parse_quote! {
            #[document(index(keys(at = asc, kind = asc), expire_after = 60))]
            struct Event { at: DateTime, kind: String }
        };
        assert_one(
            &messages(Derive::Document, &compound, rule),
            "`expire_after` needs exactly one key: a TTL index cannot be compound (this one has 2)",
        );
        let one = parse_quote! {
            #[document(index(keys(at = asc), expire_after = 60))]
            struct Event { at: DateTime, kind: String }
        };
        assert!(messages(Derive::Document, &one, rule).is_empty());
    }

    #[test]
    fn indexes_are_distinct() {
        let rule = super::indexes_are_distinct;
        let same_keys = parse_quote! {
            #[document(index(keys(author_id = asc)))]
            struct Post {
                #[reference(index)]
                author_id: ObjectId,
            }
        };
        assert_one(
            &messages(Derive::Document, &same_keys, rule),
            "two indexes on the same keys {author_id: 1}: `index(...)` here and `#[reference(index)]` on `author_id` (its index is {author_id: 1, _id: 1}, `_id` last to order ties) before it",
        );
        let same_name = parse_quote! {
            #[document(index(keys(a = asc), name = "by"), index(keys(b = asc), name = "by"))]
            struct Post { a: i32, b: i32 }
        };
        assert_one(
            &messages(Derive::Document, &same_name, rule),
            "two indexes named `by`: `index(...)` here and `index(...)` before it; give one another `name`",
        );
        let distinct = parse_quote! {
            #[document(index(keys(a = asc)), index(keys(a = desc)), index(keys(a = asc, b = asc)))]
            struct Post { a: i32, b: i32 }
        };
        assert!(messages(Derive::Document, &distinct, rule).is_empty());
    }

    #[test]
    fn the_id_is_not_indexed_again() {
        let rule = super::id_is_not_indexed_again;
        let input = parse_quote! {
            #[document(index(keys(id = asc)))]
            struct Post {
                #[serde(rename = "_id")]
                id: ObjectId,
            }
        };
        assert_one(
            &messages(Derive::Document, &input, rule),
            "the server already indexes `_id` (unique); remove this index",
        );
        let partial = parse_quote! {
            #[document(index(keys(id = asc), partial(id(exists = true))))]
            struct Post {
                #[serde(rename = "_id")]
                id: ObjectId,
            }
        };
        assert!(messages(Derive::Document, &partial, rule).is_empty());
    }
}
