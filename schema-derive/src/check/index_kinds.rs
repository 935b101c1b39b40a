//! The rules of an index key's kind (`keys(field = hashed)`,
//! `keys(field = "2dsphere")`, see `schema_core::IndexKind`): such an index
//! is one key; a hashed one is never unique, and on a field that holds one
//! value (the server refuses to hash an array; a 2dsphere key may hold
//! legacy `[lng, lat]` pairs).
//! Only `index(...)` declares a hashed key; a shard key's hashed index is
//! `schema_core`'s to add.

use super::{not_one_value, NotOneValue};
use crate::ast::Input;
use crate::attr::{Dir, FieldKind, KeyName};
use crate::ctxt::Ctxt;

pub(super) fn check(cx: &Ctxt, input: &Input) {
    for index in &input.attrs.indexes {
        let Some(kinded) = index.keys.iter().find(|k| k.dir.is_kind()) else {
            continue;
        };
        let (kind, written) = match kinded.dir {
            Dir::Hashed => ("hashed", "hashed".to_owned()),
            _ => ("2dsphere", format!("{:?}", kinded.dir.as_text())),
        };
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
        if kinded.dir != Dir::Hashed {
            continue;
        }
        let hashed = kinded;
        if index.unique {
            cx.error_at(
                index.span,
                "a hashed index cannot be unique (two values may share a hash): drop `unique`, or declare an ordered unique index on the field",
            );
        }
        hashed_key_is_one_value(cx, input, &hashed.name);
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
