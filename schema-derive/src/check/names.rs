//! The rules of stored names: no two fields stored under one key, and every
//! key serde writes (fields, `tag`, `content`, externally tagged variants)
//! is one plain key the server can address.

use std::collections::HashMap;

use syn::ext::IdentExt;

use super::report::report;
use crate::ast::{Data, Field, Input};
use crate::ctxt::Ctxt;

/// Two fields stored under one name would write the same key twice.
pub(super) fn stored_names_are_distinct(cx: &Ctxt, input: &Input) {
    let mut seen: HashMap<&str, &Field> = HashMap::new();
    for field in input.struct_fields().iter().filter(|f| f.is_stored()) {
        if let Some(first) = seen.get(field.stored.as_str()) {
            cx.error_at(
                field.span(),
                format!(
                    "`{}` and `{}` are both stored as `{}`",
                    first.name, field.name, field.stored
                ),
            );
        } else {
            seen.insert(&field.stored, field);
        }
    }
}

/// Every key serde writes (a named field, a `tag` or `content` key, the name
/// of an externally tagged variant that carries data) is one plain key: the
/// server reads a `.` in a path as a step into a sub-document and a leading
/// `$` as an operator, so a push, a filter or an index on such a key would
/// address another field (or be refused), and a NUL byte cannot be encoded.
pub(super) fn stored_names_are_plain_keys(cx: &Ctxt, input: &Input) {
    for field in input.all_fields() {
        if field.original.ident.is_none() || !field.is_stored() {
            continue;
        }
        if let Some(why) = not_a_plain_key(&field.stored) {
            report(
                cx,
                field,
                field.span(),
                format!(
                    "field `{}` is stored as the key \"{}\": {why}; rename it",
                    field.label,
                    field.stored.escape_debug()
                ),
            );
        }
    }
    for (key, what) in [(&input.serde.tag, "tag"), (&input.serde.content, "content")] {
        if let Some(why) = key.as_deref().and_then(not_a_plain_key) {
            let key = key.as_deref().unwrap_or_default();
            cx.error_spanned_by(
                input.ident,
                format!(
                    "`#[serde({what} = \"{}\")]` is stored as a key: {why}; choose another name",
                    key.escape_debug()
                ),
            );
        }
    }
    if let (Data::Enum(variants), None, false) =
        (&input.data, &input.serde.tag, input.serde.untagged)
    {
        for variant in variants {
            if variant.skip || variant.untagged || variant.style == crate::ast::Style::Unit {
                continue;
            }
            if let Some(why) = not_a_plain_key(&variant.stored) {
                cx.error_spanned_by(
                    variant.ident,
                    format!(
                        "variant `{}` is stored as the key \"{}\": {why}; rename it",
                        variant.ident.unraw(),
                        variant.stored.escape_debug()
                    ),
                );
            }
        }
    }
}

/// Why `key` cannot be one stored key, or `None` when it can.
fn not_a_plain_key(key: &str) -> Option<&'static str> {
    if key.is_empty() {
        Some("an empty key cannot be named in a field path, so no push, filter or index can reach it")
    } else if key.contains('.') {
        Some("the server reads a `.` in a field path as a step into a sub-document, so a push, a filter or an index on it would address another field")
    } else if key.starts_with('$') {
        Some("the server reads a key starting with `$` as an operator in updates and queries")
    } else if key.contains('\0') {
        Some("BSON ends a key at a NUL character, so it cannot be stored")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::ast::Derive;
    use crate::check::testing::{assert_one, messages};

    #[test]
    fn stored_names_are_distinct() {
        let rule = super::stored_names_are_distinct;
        let twice = parse_quote! {
            struct Post {
                title: String,
                #[serde(rename = "title")]
                heading: String,
                #[serde(rename = "heading")]
                #[serde(skip)]
                skipped: String,
            }
        };
        assert_one(
            &messages(Derive::Document, &twice, rule),
            "`title` and `heading` are both stored as `title`",
        );
        let distinct = parse_quote! {
            #[serde(rename_all = "camelCase")]
            struct Post {
                author_id: ObjectId,
                #[serde(rename = "author")]
                author_name: String,
            }
        };
        assert!(messages(Derive::Document, &distinct, rule).is_empty());
    }

    #[test]
    fn stored_names_are_plain_keys() {
        let rule = super::stored_names_are_plain_keys;
        let field = parse_quote! {
            struct Post {
                #[serde(rename = "meta.title")]
                title: String,
            }
        };
        assert_one(
            &messages(Derive::Document, &field, rule),
            "field `title` is stored as the key \"meta.title\": the server reads a `.` in a field path",
        );
        let tag = parse_quote! {
            #[serde(tag = "$kind")]
            enum Shape { Circle { r: f64 } }
        };
        assert_one(
            &messages(Derive::Embedded, &tag, rule),
            "`#[serde(tag = \"$kind\")]` is stored as a key: the server reads a key starting with `$` as an operator",
        );
        let variant = parse_quote! {
            enum Shape {
                #[serde(rename = "")]
                Circle(f64),
                #[serde(rename = "a.b")]
                Unit,
            }
        };
        assert_one(
            &messages(Derive::Embedded, &variant, rule),
            "variant `Circle` is stored as the key \"\": an empty key cannot be named",
        );
        let plain = parse_quote! {
            #[serde(tag = "kind", content = "data")]
            enum Shape {
                #[serde(rename = "circle")]
                Circle { r: f64 },
            }
        };
        assert!(messages(Derive::Embedded, &plain, rule).is_empty());
    }

    #[test]
    fn a_plain_key_has_no_dot_dollar_or_nul() {
        assert!(not_a_plain_key("authorId").is_none());
        assert!(not_a_plain_key("a$b").is_none());
        for key in ["", "a.b", "$set", "a\0b"] {
            assert!(not_a_plain_key(key).is_some(), "{key:?}");
        }
    }
}
