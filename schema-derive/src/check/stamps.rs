//! The rules of `#[document(version)]` and `#[document(timestamps)]`: on a
//! root document, keeping fields the model declares and stores.

use syn::ext::IdentExt;

use crate::ast::{Derive, Input};
use crate::attr::{TIMESTAMPS, VERSION};
use crate::ctxt::Ctxt;
use crate::stamp;

/// `version` and `timestamps` keep fields of a root document, which the
/// helpers write; a sub-document has no helper of its own.
pub(super) fn stamps_are_on_documents(cx: &Ctxt, input: &Input) {
    if input.derive != Derive::Embedded || input.attrs.collection.is_some() {
        return;
    }
    let version = input
        .attrs
        .version
        .as_ref()
        .map(|(_, span)| (*span, VERSION));
    let timestamps = input.attrs.timestamps.map(|span| (span, TIMESTAMPS));
    for (span, key) in version.into_iter().chain(timestamps) {
        cx.error_at(
            span,
            format!(
                "`{key}` belongs to a root document (`#[derive(Document)]`): the helpers that keep it write whole documents, not sub-documents"
            ),
        );
    }
}

/// The fields `version` and `timestamps` keep must be declared by the model
/// (so reads see them, and renames apply), stored (not `#[serde(skip)]`),
/// not the `_id`, and distinct. Their types are checked by the generated
/// code (`VersionField`, `TimestampField`), so an alias is judged by what it
/// names.
pub(super) fn stamp_fields_are_declared(cx: &Ctxt, input: &Input) {
    if input.derive != Derive::Document {
        return;
    }
    let ident = input.ident.unraw();
    let mut named: Vec<(&str, proc_macro2::Span, String)> = Vec::new();
    if let Some((name, span)) = &input.attrs.version {
        named.push((
            name.as_str(),
            *span,
            format!(
                "`#[document(version)]` keeps the version in the field `{name}`, which `{ident}` does not declare: add `{name}: i64` (or name an integer field: `version = \"rev\"`)"
            ),
        ));
    }
    if let Some(span) = input.attrs.timestamps {
        for name in [stamp::CREATED_AT, stamp::UPDATED_AT] {
            named.push((
                name,
                span,
                format!(
                    "`#[document(timestamps)]` keeps the times in `created_at` and `updated_at`, and `{ident}` does not declare `{name}`: add `{name}: bson::DateTime` (serde renames apply to the stored name)"
                ),
            ));
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for (name, span, missing) in named {
        let Some(field) = input.field_named(name) else {
            cx.error_at(span, missing);
            continue;
        };
        if !field.is_stored() {
            cx.error_at(
                span,
                format!("the field `{name}` is skipped by serde, so it cannot keep `{}`: remove the `skip`", stamp::key_of(name)),
            );
        } else if field.stored == "_id" {
            cx.error_at(
                span,
                format!("the field `{name}` is the `_id`; name another field"),
            );
        } else if seen.contains(&name) {
            cx.error_at(
                span,
                format!("the field `{name}` cannot keep both the version and a timestamp"),
            );
        }
        seen.push(name);
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::check::testing::{assert_one, messages};

    #[test]
    fn stamps_are_on_documents() {
        let rule = super::stamps_are_on_documents;
        let input = parse_quote! {
            #[document(version, timestamps)]
            struct Line { version: i64 }
        };
        let found = messages(Derive::Embedded, &input, rule);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].starts_with("`version` belongs to a root document (`#[derive(Document)]`)")
        );
        assert!(
            found[1].starts_with("`timestamps` belongs to a root document (`#[derive(Document)]`)")
        );
        assert!(messages(Derive::Document, &input, rule).is_empty());
    }

    #[test]
    fn stamp_fields_are_declared_and_stored() {
        let rule = super::stamp_fields_are_declared;
        let missing = parse_quote! {
            #[document(version = "rev", timestamps)]
            struct Post { created_at: DateTime }
        };
        let found = messages(Derive::Document, &missing, rule);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].starts_with(
            "`#[document(version)]` keeps the version in the field `rev`, which `Post` does not declare"
        ));
        assert!(found[1].starts_with(
            "`#[document(timestamps)]` keeps the times in `created_at` and `updated_at`, and `Post` does not declare `updated_at`"
        ));
        let skipped = parse_quote! {
            #[document(version)]
            struct Post {
                #[serde(skip)]
                version: i64,
            }
        };
        assert_one(
            &messages(Derive::Document, &skipped, rule),
            "the field `version` is skipped by serde, so it cannot keep `version`: remove the `skip`",
        );
        let id = parse_quote! {
            #[document(version = "id")]
            struct Post {
                #[serde(rename = "_id")]
                id: i64,
            }
        };
        assert_one(
            &messages(Derive::Document, &id, rule),
            "the field `id` is the `_id`; name another field",
        );
        let both = parse_quote! {
            #[document(version = "created_at", timestamps)]
            struct Post { created_at: DateTime, updated_at: DateTime }
        };
        assert_one(
            &messages(Derive::Document, &both, rule),
            "the field `created_at` cannot keep both the version and a timestamp",
        );
        let declared = parse_quote! {
            #[document(version, timestamps)]
            struct Post { version: i64, created_at: DateTime, updated_at: DateTime }
        };
        assert!(messages(Derive::Document, &declared, rule).is_empty());
    }
}
