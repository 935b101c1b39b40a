//! What the derive reads from `#[serde(...)]`: the stored names of fields and
//! variants, and whether a field is always written.
//!
//! Serde reports malformed serde attributes itself, so this module is lenient:
//! anything it cannot read, or does not need, is skipped silently. Whether
//! one of them has a typo that serde or the compiler reports is [`typo`]'s.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Token};

pub mod typo;

/// A serde `rename_all` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

const RULES: &[(&str, RenameRule)] = &[
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl RenameRule {
    pub fn parse(s: &str) -> Option<RenameRule> {
        RULES.iter().find(|(name, _)| *name == s).map(|(_, r)| *r)
    }

    /// Applies the rule to a field name written in snake_case (serde's logic).
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply_to_field(field);
                lower_first(&pascal)
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// Applies the rule to a variant name written in PascalCase (serde's logic).
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => lower_first(variant),
            RenameRule::Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            RenameRule::ScreamingSnake => RenameRule::Snake
                .apply_to_variant(variant)
                .to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake
                .apply_to_variant(variant)
                .replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// Container-level serde attributes the derive needs.
#[derive(Default)]
pub struct SerdeContainer {
    /// `rename = "..."`: the name a struct's `tag` stores.
    pub rename: Option<String>,
    /// `rename_all = "..."` (the serialize side).
    pub rename_all: Option<RenameRule>,
    /// `rename_all_fields = "..."` (enums: fields of struct variants).
    pub rename_all_fields: Option<RenameRule>,
    /// `default`: every field may be missing.
    pub default: bool,
    /// `tag = "..."`: internally (or, with `content`, adjacently) tagged.
    pub tag: Option<String>,
    /// `content = "..."`.
    pub content: Option<String>,
    /// `untagged`.
    pub untagged: bool,
    /// `transparent`.
    pub transparent: Option<Span>,
    /// `into = "..."`: serde stores another type, with the span of the key.
    pub into: Option<Span>,
}

/// Field-level serde attributes the derive needs.
#[derive(Default)]
pub struct SerdeField {
    /// `rename = "..."` or `rename(serialize = "...")`.
    pub rename: Option<String>,
    /// `skip` or `skip_serializing`: never stored.
    pub skip: bool,
    /// `default` or `skip_serializing_if`: a document may lack the field.
    pub may_be_missing: bool,
    /// `with`/`serialize_with`: the stored form is not the Rust type's.
    pub custom_serializer: bool,
    /// The custom serializer is a known encoding of one stored value
    /// ([`is_single_value_encoding`]), so the field's Rust type need not be
    /// bounded.
    pub single_value_encoding: bool,
    /// `flatten`, with the span of the key.
    pub flatten: Option<Span>,
}

/// Variant-level serde attributes the derive needs.
#[derive(Default)]
pub struct SerdeVariant {
    pub rename: Option<String>,
    pub rename_all: Option<RenameRule>,
    pub skip: bool,
    /// `untagged` on the variant: stored as its content alone.
    pub untagged: bool,
    /// `with`/`serialize_with`: the stored content is not the fields'.
    pub custom_serializer: bool,
}

/// Reads every `#[serde(...)]` on a container.
pub fn container(attrs: &[Attribute]) -> SerdeContainer {
    let mut out = SerdeContainer::default();
    for_each_serde_meta(attrs, |meta| {
        if meta.path.is_ident("rename") {
            if let Some(name) = serialize_name(meta) {
                out.rename = Some(name);
            }
        } else if meta.path.is_ident("rename_all") {
            out.rename_all = rename_rule(meta);
        } else if meta.path.is_ident("rename_all_fields") {
            out.rename_all_fields = rename_rule(meta);
        } else if meta.path.is_ident("default") {
            out.default = true;
        } else if meta.path.is_ident("tag") {
            out.tag = string_value(meta);
        } else if meta.path.is_ident("content") {
            out.content = string_value(meta);
        } else if meta.path.is_ident("untagged") {
            out.untagged = true;
        } else if meta.path.is_ident("transparent") {
            out.transparent = Some(span_of(&meta.path));
        } else if meta.path.is_ident("into") {
            out.into = Some(span_of(&meta.path));
        }
    });
    out
}

/// Reads every `#[serde(...)]` on a field.
pub fn field(attrs: &[Attribute]) -> SerdeField {
    let mut out = SerdeField::default();
    for_each_serde_meta(attrs, |meta| {
        if meta.path.is_ident("rename") {
            if let Some(name) = serialize_name(meta) {
                out.rename = Some(name);
            }
        } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_serializing") {
            out.skip = true;
        } else if meta.path.is_ident("default") || meta.path.is_ident("skip_serializing_if") {
            out.may_be_missing = true;
        } else if meta.path.is_ident("with") || meta.path.is_ident("serialize_with") {
            out.custom_serializer = true;
            out.single_value_encoding = string_value(meta)
                .as_deref()
                .is_some_and(is_single_value_encoding);
        } else if meta.path.is_ident("flatten") {
            out.flatten = Some(span_of(&meta.path));
        }
    });
    out
}

/// Reads every `#[serde(...)]` on an enum variant.
pub fn variant(attrs: &[Attribute]) -> SerdeVariant {
    let mut out = SerdeVariant::default();
    for_each_serde_meta(attrs, |meta| {
        if meta.path.is_ident("rename") {
            if let Some(name) = serialize_name(meta) {
                out.rename = Some(name);
            }
        } else if meta.path.is_ident("rename_all") {
            out.rename_all = rename_rule(meta);
        } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_serializing") {
            out.skip = true;
        } else if meta.path.is_ident("untagged") {
            out.untagged = true;
        } else if meta.path.is_ident("with") || meta.path.is_ident("serialize_with") {
            out.custom_serializer = true;
        }
    });
    out
}

/// Serializers known to store exactly one value whatever the data: `serde_bytes`
/// (one binary value; its own trait accepts byte buffers only) and the
/// helpers of `bson::serde_helpers` (each takes one scalar type and stores one
/// scalar), also named through `schema_core`'s re-export
/// (`schema_core::bson::serde_helpers`). Any other `with`/`serialize_with`
/// keeps the bound check on the field's Rust type.
pub fn is_single_value_encoding(path: &str) -> bool {
    let path = path.trim().trim_start_matches("::");
    let mut segments = path.split("::").map(str::trim).peekable();
    if segments.peek() == Some(&"schema_core") {
        segments.next();
        if segments.peek() != Some(&"bson") {
            return false;
        }
    }
    match (segments.next(), segments.next()) {
        (Some("serde_bytes"), _) => true,
        (Some("bson"), Some("serde_helpers")) => segments.next().is_some(),
        _ => false,
    }
}

fn span_of(path: &syn::Path) -> Span {
    path.segments
        .first()
        .map_or_else(Span::call_site, |s| s.ident.span())
}

/// Calls `f` on each `key ...` inside every `#[serde(...)]`, skipping what
/// `f` leaves unread. A malformed serde attribute is left to serde to report.
fn for_each_serde_meta(attrs: &[Attribute], mut f: impl FnMut(&ParseNestedMeta)) {
    for attr in attrs {
        if !attr.path().is_ident("serde") {
            continue;
        }
        let _ignored_serde_reports_it = attr.parse_nested_meta(|meta| {
            f(&meta);
            crate::attr::skip_rest(meta.input);
            Ok(())
        });
    }
}

/// `key = "value"` -> `Some("value")`, consuming it.
fn string_value(meta: &ParseNestedMeta) -> Option<String> {
    if !meta.input.peek(Token![=]) {
        return None;
    }
    let value = meta.value().ok()?;
    value.parse::<LitStr>().ok().map(|lit| lit.value())
}

/// `rename = "x"` or `rename(serialize = "x", deserialize = "y")`: the serialize side.
fn serialize_name(meta: &ParseNestedMeta) -> Option<String> {
    if meta.input.peek(Token![=]) {
        return string_value(meta);
    }
    let mut name = None;
    let _ignored_serde_reports_it = meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("serialize") {
            name = string_value(&inner);
        }
        crate::attr::skip_rest(inner.input);
        Ok(())
    });
    name
}

/// `rename_all = "camelCase"` or `rename_all(serialize = "camelCase")`.
fn rename_rule(meta: &ParseNestedMeta) -> Option<RenameRule> {
    serialize_name(meta).and_then(|s| RenameRule::parse(&s))
}

#[cfg(test)]
mod tests {
    use super::RenameRule::{self, *};

    #[test]
    fn fields_follow_serde() {
        let cases: &[(RenameRule, &str)] = &[
            (Lower, "author_id"),
            (Upper, "AUTHOR_ID"),
            (Pascal, "AuthorId"),
            (Camel, "authorId"),
            (Snake, "author_id"),
            (ScreamingSnake, "AUTHOR_ID"),
            (Kebab, "author-id"),
            (ScreamingKebab, "AUTHOR-ID"),
        ];
        for (rule, expected) in cases {
            assert_eq!(rule.apply_to_field("author_id"), *expected, "{rule:?}");
        }
        assert_eq!(Camel.apply_to_field("at"), "at");
        assert_eq!(Camel.apply_to_field("unit_price"), "unitPrice");
    }

    #[test]
    fn variants_follow_serde() {
        let cases: &[(RenameRule, &str)] = &[
            (Lower, "verylongname"),
            (Upper, "VERYLONGNAME"),
            (Pascal, "VeryLongName"),
            (Camel, "veryLongName"),
            (Snake, "very_long_name"),
            (ScreamingSnake, "VERY_LONG_NAME"),
            (Kebab, "very-long-name"),
            (ScreamingKebab, "VERY-LONG-NAME"),
        ];
        for (rule, expected) in cases {
            assert_eq!(rule.apply_to_variant("VeryLongName"), *expected, "{rule:?}");
        }
    }

    #[test]
    fn single_value_encodings() {
        use super::is_single_value_encoding as known;
        assert!(known("serde_bytes"));
        assert!(known("::serde_bytes"));
        assert!(known(
            "bson::serde_helpers::chrono_datetime_as_bson_datetime"
        ));
        assert!(known("bson::serde_helpers::serialize_u64_as_i64"));
        assert!(known("bson::serde_helpers::u64::AsI64"));
        assert!(known("schema_core::bson::serde_helpers::u64::AsI64"));
        assert!(known(
            "::schema_core::bson::serde_helpers::object_id::AsHexString"
        ));
        assert!(!known("bson::serde_helpers"));
        assert!(!known("schema_core::bson::serde_helpers"));
        assert!(!known("schema_core::serde_bytes"));
        assert!(!known("my_crate::bson::serde_helpers::u64::AsI64"));
        assert!(!known("my_bytes"));
        assert!(!known("serde_with::As"));
        assert!(!known("crate::serde_bytes"));
    }

    #[test]
    fn every_serde_casing_is_known() {
        for name in [
            "lowercase",
            "UPPERCASE",
            "PascalCase",
            "camelCase",
            "snake_case",
            "SCREAMING_SNAKE_CASE",
            "kebab-case",
            "SCREAMING-KEBAB-CASE",
        ] {
            assert!(RenameRule::parse(name).is_some(), "{name}");
        }
        assert!(RenameRule::parse("Camel").is_none());
    }
}
