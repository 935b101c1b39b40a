//! The rules of an index key's kind (`keys(field = hashed)`,
//! `keys(field = "2dsphere")`, `keys(a = "text", b = "text")`, see
//! `schema_core::IndexKind`): a hashed or 2dsphere index is one key; a
//! hashed one is never unique, and on a field that holds one value (the
//! server refuses to hash an array; a 2dsphere key may hold legacy
//! `[lng, lat]` pairs); a text index's keys are all text, a collection has
//! one, and its `weights` and `default_language` are its own.
//! Only `index(...)` declares a hashed key; a shard key's hashed index is
//! `schema_core`'s to add.

use super::id::{not_one_value, NotOneValue};
use crate::ast::Input;
use crate::attr::{Dir, FieldKind, IndexAttr, IndexKey, KeyName};
use crate::ctxt::Ctxt;
use crate::suggest;

/// The languages a text index stems (the server's list, by name and code;
/// `none` for no stemming).
const TEXT_LANGUAGES: &[&str] = &[
    "none",
    "danish",
    "da",
    "dutch",
    "nl",
    "english",
    "en",
    "finnish",
    "fi",
    "french",
    "fr",
    "german",
    "de",
    "hungarian",
    "hu",
    "italian",
    "it",
    "norwegian",
    "nb",
    "portuguese",
    "pt",
    "romanian",
    "ro",
    "russian",
    "ru",
    "spanish",
    "es",
    "swedish",
    "sv",
    "turkish",
    "tr",
];

pub(super) fn check(cx: &Ctxt, input: &Input) {
    let mut first_text: Option<proc_macro2::Span> = None;
    for index in &input.attrs.indexes {
        wildcard_keys_are_whole(cx, index);
        let kinded = index.keys.iter().find(|k| k.dir.is_kind());
        let text = kinded.is_some_and(|k| k.dir == Dir::Text);
        text_options_are_on_a_text_index(cx, input, index, text);
        let Some(kinded) = kinded else {
            continue;
        };
        match kinded.dir {
            Dir::Text => {
                text_keys_are_all_text(cx, index);
                if first_text.is_some() {
                    cx.error_at(
                        index.span,
                        "a second text index: a collection has at most one (the server refuses another); put every field `$text` searches in one `index(keys(a = \"text\", b = \"text\"))`",
                    );
                }
                first_text.get_or_insert(index.span);
            }
            Dir::Hashed => {
                is_one_key(cx, input, index, kinded, "hashed", "hashed");
                if index.unique {
                    cx.error_at(
                        index.span,
                        "a hashed index cannot be unique (two values may share a hash): drop `unique`, or declare an ordered unique index on the field",
                    );
                }
                hashed_key_is_one_value(cx, input, &kinded.name);
            }
            _ => is_one_key(cx, input, index, kinded, "2dsphere", "\"2dsphere\""),
        }
    }
}

/// A wildcard key (`"$**"`, `"attrs.$**"`) ends its path with `$**`,
/// and its index is not unique (the server refuses both otherwise).
fn wildcard_keys_are_whole(cx: &Ctxt, index: &IndexAttr) {
    for key in &index.keys {
        let KeyName::Path(lit) = &key.name else {
            continue;
        };
        let path = lit.value();
        if !path.contains("$**") {
            continue;
        }
        if !(path == "$**" || path.ends_with(".$**")) || path.matches("$**").count() > 1 {
            cx.error_spanned_by(
                lit,
                format!("`{path}` is not a wildcard key: it is `\"$**\"` (every field) or a path ending in `.$**` (every field under it), such as `\"attrs.$**\"`"),
            );
        } else if index.unique {
            cx.error_at(
                index.span,
                "a wildcard index cannot be unique: declare an ordered unique index on the field",
            );
        }
    }
}

/// A hashed or 2dsphere index is its one key.
fn is_one_key(
    cx: &Ctxt,
    input: &Input,
    index: &IndexAttr,
    kinded: &IndexKey,
    kind: &str,
    written: &str,
) {
    if index.keys.len() > 1 {
        cx.error_at(
            kinded.name.span(),
            format!(
                "a {kind} index is one key: `index(keys({} = {written}))` alone (this one has {}); an ordered index serves the other keys",
                input.stored_key(&kinded.name),
                index.keys.len()
            ),
        );
    }
}

/// The framework's text index holds text keys only.
fn text_keys_are_all_text(cx: &Ctxt, index: &IndexAttr) {
    for key in index.keys.iter().filter(|k| k.dir != Dir::Text) {
        cx.error_at(
            key.name.span(),
            "a text index's keys are all `\"text\"`: declare the ordered keys in an index of their own",
        );
    }
}

/// `weights(...)` and `default_language` belong to a text index; each
/// weight names one of its keys, and the language is one the server stems.
fn text_options_are_on_a_text_index(cx: &Ctxt, input: &Input, index: &IndexAttr, text: bool) {
    if !text {
        if let Some((key, _, _)) = index.weights.first() {
            cx.error_at(key.span(), "`weights` belong to a text index: `index(keys(title = \"text\"), weights(title = 10))`");
        }
        if let Some(lang) = &index.default_language {
            cx.error_spanned_by(lang, "`default_language` belongs to a text index: `index(keys(title = \"text\"), default_language = \"english\")`");
        }
        return;
    }
    for (key, _, _) in &index.weights {
        let stored = input.stored_key(key);
        if !index
            .keys
            .iter()
            .any(|k| input.stored_key(&k.name) == stored)
        {
            cx.error_at(
                key.span(),
                format!("`{stored}` is weighed but not a key of this text index: add `{stored} = \"text\"` to its `keys(...)`, or drop its weight"),
            );
        }
    }
    if let Some(lang) = &index.default_language {
        let value = lang.value();
        if !TEXT_LANGUAGES.contains(&value.as_str()) {
            let hint = suggest::hint(&value, TEXT_LANGUAGES);
            let known = if hint.is_empty() {
                let names: Vec<&str> = TEXT_LANGUAGES
                    .iter()
                    .filter(|l| l.len() > 2)
                    .copied()
                    .collect();
                format!(": one of {} (or their two-letter codes)", names.join(", "))
            } else {
                hint
            };
            cx.error_spanned_by(
                lang,
                format!("`{value}` is not a language the server's text index knows{known}"),
            );
        }
    }
}

/// A hashed key names a field that holds one value: the server refuses a
/// hashed index on an array.
fn hashed_key_is_one_value(cx: &Ctxt, input: &Input, key: &KeyName) {
    let KeyName::Field(ident) = key else {
        return;
    };
    let Some(field) = input.field_named(&syn::ext::IdentExt::unraw(ident).to_string()) else {
        return;
    };
    let array = matches!(not_one_value(field.ty), Some(NotOneValue::Array))
        || matches!(field.kind, FieldKind::Embed(_) | FieldKind::ManyToMany(_));
    if array {
        cx.error_spanned_by(
            ident,
            format!(
                "`{}` holds an array, and the server refuses a hashed index on an array: hash a field that holds one value",
                field.label
            ),
        );
    }
}
