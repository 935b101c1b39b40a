//! The rules of `#[document(shard_key(...))]` (see `schema_core::shard`):
//! its fields exist, each holds one value every document stores, a hashed
//! key is one field, and every unique index can be enforced on a cluster.
//! One function per rule.

use std::collections::HashSet;

use super::id::{not_one_value, NotOneValue};
use super::keys::check_field_key_as;
use super::report::written;
use crate::ast::{key_text, Derive, Input};
use crate::attr::{CopyKind, Dir, FieldKind, KeyName, ShardKeyAttr};
use crate::ctxt::Ctxt;

pub(super) fn check(cx: &Ctxt, input: &Input) {
    let Some(key) = &input.attrs.shard_key else {
        return;
    };
    if input.derive != Derive::Document {
        cx.error_at(
            key.span,
            "`shard_key` belongs to a root document (`#[derive(Document)]`): it is how its collection is spread over the shards, and a sub-document is stored inside its parent's",
        );
        return;
    }
    if input.attrs.timeseries.is_some() {
        cx.error_at(
            key.span,
            "`shard_key` on a time series is not supported yet: a sharded time-series collection is keyed on its meta field and time, which `timeseries(...)` does not declare; shard it by hand (`shardCollection` with `timeseries`) or drop `shard_key`",
        );
        return;
    }
    let fields_ok = fields_are_stored_fields(cx, input, key);
    hashed_key_is_one_field(cx, key);
    if fields_ok {
        fields_hold_one_value(cx, input, key);
        unique_indexes_start_with_the_key(cx, input, key);
        the_keys_index_can_support_it(cx, input, key);
    }
}

/// Each field names a stored field of the struct, once.
fn fields_are_stored_fields(cx: &Ctxt, input: &Input, key: &ShardKeyAttr) -> bool {
    let mut ok = true;
    let mut seen = HashSet::new();
    for field in &key.fields {
        if !check_field_key_as(
            cx,
            input,
            &KeyName::Field(field.ident.clone()),
            "a shard key",
        ) {
            ok = false;
        } else if !seen.insert(field.name()) {
            cx.error_spanned_by(
                &field.ident,
                format!("`{}` appears twice in the shard key", field.name()),
            );
            ok = false;
        }
    }
    ok
}

/// The framework's hashed index is one hashed field, so a hashed shard key
/// is one field.
fn hashed_key_is_one_field(cx: &Ctxt, key: &ShardKeyAttr) {
    if let Some(hashed) = key.hashed() {
        if key.fields.len() > 1 {
            cx.error_at(
                hashed,
                format!(
                    "a hashed shard key is one field: `shard_key(hashed({}))` alone, or a ranged key on several fields without `hashed`",
                    key.fields
                        .iter()
                        .find(|f| f.hashed.is_some())
                        .map_or_else(String::new, |f| f.name())
                ),
            );
        }
    }
}

/// Each field is one value every stored document holds: the server refuses
/// a shard key value that is an array, and a document without one (or with
/// `null`) lands in one chunk with every other such document.
fn fields_hold_one_value(cx: &Ctxt, input: &Input, key: &ShardKeyAttr) {
    for shard_field in &key.fields {
        let Some(field) = input.field_named(&shard_field.name()) else {
            continue;
        };
        let name = &field.label;
        let why = match (not_one_value(field.ty), &field.kind) {
            (Some(NotOneValue::Option), _) => format!(
                "is `{}`: `None` is stored as null, and every document without a value lands in one chunk that never splits",
                written(field.ty)
            ),
            (Some(NotOneValue::Array), _) | (_, FieldKind::ManyToMany(_)) => format!(
                "is `{}`, stored as an array: MongoDB refuses an array in a shard key",
                written(field.ty)
            ),
            (Some(NotOneValue::Unit | NotOneValue::FreeForm), _) => format!(
                "is `{}`, which may be null or an array",
                written(field.ty)
            ),
            (None, FieldKind::Embed(_)) => {
                "is an `#[embed]` field, which the bounded pushes grow".to_owned()
            }
            (None, _) if field.serde.may_be_missing || input.serde.default => {
                "may be missing from a stored document (serde `default` or `skip_serializing_if`)".to_owned()
            }
            (None, _) if field.copy.as_ref().is_some_and(|c| c.kind == CopyKind::Follows) => {
                "is a `#[copy]` of another document's field, which the copy helpers rewrite when the source changes".to_owned()
            }
            (None, _) if stamped(input, &field.name) => {
                "is a field every helper write changes (`version`, `timestamps`): a shard key value that moves with each write moves the document between chunks".to_owned()
            }
            (None, _) if field.serde.custom_serializer && !field.serde.single_value_encoding => {
                "is stored by a custom serializer (`#[serde(with)]`), so its stored form may not be one value".to_owned()
            }
            (None, _) => continue,
        };
        // Its type probe would say it again.
        field.flag();
        cx.error_spanned_by(
            &shard_field.ident,
            format!(
                "shard key field `{name}` {why}; a shard key field is one required value, such as a `String`, an integer, an `ObjectId` or a `DateTime`"
            ),
        );
    }
}

/// Whether the helpers rewrite the field `name` on every write: the
/// `#[document(version)]` field, or `timestamps`' `updated_at`.
fn stamped(input: &Input, name: &str) -> bool {
    input.attrs.version.as_ref().is_some_and(|(v, _)| v == name)
        || (input.attrs.timestamps.is_some() && name == "updated_at")
}

/// The stored names of the key's fields, in order.
fn stored_fields(input: &Input, key: &ShardKeyAttr) -> Vec<String> {
    key.fields
        .iter()
        .map(|f| input.stored_key(&KeyName::Field(f.ident.clone())))
        .collect()
}

/// On a sharded collection the server enforces a unique index only when it
/// starts with the shard key's fields (the `_id` index is unique on each
/// shard only): any other unique index is refused by `shardCollection`.
fn unique_indexes_start_with_the_key(cx: &Ctxt, input: &Input, key: &ShardKeyAttr) {
    let fields = stored_fields(input, key);
    let shard_text = fields.join(", ");
    for index in input.indexes().iter().filter(|i| i.unique) {
        let starts = index.keys.len() >= fields.len()
            && index
                .keys
                .iter()
                .zip(&fields)
                .all(|((k, dir), f)| k == f && !dir.is_kind());
        if !starts {
            cx.error_at(
                index.span,
                format!(
                    "unique index {} ({}) does not start with the shard key's fields ({shard_text}): on a sharded collection MongoDB enforces uniqueness only on an index that starts with the shard key; put the shard key's fields first, or drop `unique`",
                    key_text(&index.keys),
                    index.origin.describe(),
                ),
            );
        }
    }
}

/// An index on exactly the shard key's keys that is sparse, partial, hidden
/// or collated cannot support it, and setup cannot create a second index on
/// the same keys that could.
fn the_keys_index_can_support_it(cx: &Ctxt, input: &Input, key: &ShardKeyAttr) {
    let dir = if key.hashed().is_some() {
        Dir::Hashed
    } else {
        Dir::Asc
    };
    let wanted: Vec<(String, Dir)> = stored_fields(input, key)
        .into_iter()
        .map(|f| (f, dir))
        .collect();
    for index in input.indexes() {
        if index.keys != wanted {
            continue;
        }
        let option = if index.sparse {
            "sparse"
        } else if !index.partial.is_empty() {
            "partial"
        } else if index.hidden {
            "hidden"
        } else if index.collation.is_some() {
            "collated"
        } else {
            continue;
        };
        cx.error_at(
            index.span,
            format!(
                "this index is on the shard key's keys {} but {option}, so it cannot be the shard key's index (MongoDB needs one that holds every document with the simple collation), and a second index on the same keys cannot exist; drop `{option}`",
                key_text(&index.keys)
            ),
        );
    }
}
