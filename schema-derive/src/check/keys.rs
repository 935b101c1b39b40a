//! A key an attribute names (an index key, a partial filter's key, a
//! reference's `sort`, a shard key) is a stored field of the struct: the one
//! check, with its message and its hint at the field meant.

use syn::ext::IdentExt;

use crate::ast::Input;
use crate::attr::KeyName;
use crate::ctxt::Ctxt;
use crate::suggest;

/// Reports a key that names no stored field of the struct; `true` when it does.
pub(super) fn check_field_key(cx: &Ctxt, input: &Input, key: &KeyName) -> bool {
    check_field_key_as(cx, input, key, "indexed")
}

/// [`check_field_key`], saying what a skipped field cannot be (`indexed`,
/// `a shard key`).
pub(super) fn check_field_key_as(cx: &Ctxt, input: &Input, key: &KeyName, role: &str) -> bool {
    let ident = match key {
        KeyName::Field(ident) => ident,
        // The first segment is this struct's; the compiler checks the rest.
        KeyName::Nested(nested) => &nested.path[0],
        KeyName::Path(_) => return true,
    };
    let name = ident.unraw().to_string();
    match input.field_named(&name) {
        Some(field) if field.is_stored() => true,
        Some(_) => {
            cx.error_spanned_by(
                ident,
                format!("`{name}` is not stored (serde skips it), so it cannot be {role}"),
            );
            false
        }
        None => {
            let names: Vec<(&str, &str)> = input
                .struct_fields()
                .iter()
                .filter(|f| f.is_stored())
                .map(|f| (f.name.as_str(), f.stored.as_str()))
                .collect();
            let hint = suggest::field_hint(&name, &names);
            cx.error_spanned_by(
                ident,
                format!("no field `{name}` on `{}`{hint}", input.ident),
            );
            false
        }
    }
}
