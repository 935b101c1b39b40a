//! Whether a serde attribute of the input has a typo that serde or the
//! compiler reports: an `#[serde(...)]` key that serde does not know (such as
//! `skip_serializing_iff`; serde then emits no `Serialize`/`Deserialize`
//! impl), or an attribute name one edit from `serde` (`#[sered(...)]`, which
//! the compiler reports as unknown). The derive uses this to add no error of
//! its own on top: no missing `_id` (the `rename` may be in the typo), no
//! unimplemented serde traits (see `expand::document`).
//!
//! The key lists are serde_derive 1.0's. A key added by a later serde and
//! missing here is harmless: the only effect of a wrong "rejected" is a
//! `Document` impl that holds only where the serde impls exist, which they do.

use syn::Attribute;

use crate::ast::Input;

const CONTAINER: &[&str] = &[
    "rename",
    "rename_all",
    "rename_all_fields",
    "transparent",
    "deny_unknown_fields",
    "default",
    "bound",
    "untagged",
    "tag",
    "content",
    "from",
    "try_from",
    "into",
    "remote",
    "field_identifier",
    "variant_identifier",
    "crate",
    "expecting",
];

const VARIANT: &[&str] = &[
    "rename",
    "alias",
    "rename_all",
    "skip",
    "skip_deserializing",
    "skip_serializing",
    "other",
    "bound",
    "with",
    "serialize_with",
    "deserialize_with",
    "borrow",
    "untagged",
];

const FIELD: &[&str] = &[
    "rename",
    "alias",
    "default",
    "skip_serializing",
    "skip_deserializing",
    "skip",
    "skip_serializing_if",
    "serialize_with",
    "deserialize_with",
    "with",
    "bound",
    "borrow",
    "getter",
    "flatten",
];

/// `true` when some `#[serde(...)]` of the input has a key serde rejects, or
/// cannot be read as a list of keys at all, or an attribute's name is a
/// misspelt `serde`.
pub fn any(input: &Input) -> bool {
    let original = input.original;
    if rejects(&original.attrs, CONTAINER) {
        return true;
    }
    if let syn::Data::Enum(data) = &original.data {
        if data.variants.iter().any(|v| rejects(&v.attrs, VARIANT)) {
            return true;
        }
    }
    input
        .all_fields()
        .iter()
        .any(|field| rejects(&field.original.attrs, FIELD))
}

fn rejects(attrs: &[Attribute], known: &[&str]) -> bool {
    let misspelt = attrs
        .iter()
        .any(|attr| crate::attr::misspelt(attr) == Some("serde"));
    misspelt
        || attrs
            .iter()
            .filter(|attr| attr.path().is_ident("serde"))
            .any(|attr| {
                let mut unknown = false;
                let parsed = attr.parse_nested_meta(|meta| {
                    if !known.iter().any(|key| meta.path.is_ident(key)) {
                        unknown = true;
                    }
                    crate::attr::skip_rest(meta.input);
                    Ok(())
                });
                unknown || parsed.is_err()
            })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(src: &str) -> Vec<Attribute> {
        match syn::parse_str::<syn::DeriveInput>(&format!("{src} struct S;")) {
            Ok(input) => input.attrs,
            Err(_) => Vec::new(),
        }
    }

    #[test]
    fn known_keys_pass() {
        assert!(!rejects(
            &attrs(r#"#[serde(rename = "_id", skip_serializing_if = "Option::is_none")]"#),
            FIELD
        ));
        assert!(!rejects(
            &attrs(r#"#[serde(rename(serialize = "a", deserialize = "b"), default)]"#),
            FIELD
        ));
        assert!(!rejects(
            &attrs(r#"#[serde(rename_all = "camelCase", tag = "type")]"#),
            CONTAINER
        ));
    }

    #[test]
    fn typos_are_rejected() {
        assert!(rejects(
            &attrs(r#"#[serde(skip_serializing_iff = "x")]"#),
            FIELD
        ));
        assert!(rejects(&attrs(r#"#[serde(renam = "_id")]"#), FIELD));
        assert!(rejects(
            &attrs(r#"#[serde(rename_al = "camelCase")]"#),
            CONTAINER
        ));
        // A field key on the container: serde rejects it there too.
        assert!(rejects(&attrs("#[serde(skip)]"), CONTAINER));
        assert!(rejects(&attrs(r#"#[sered(rename = "_id")]"#), FIELD));
        assert!(!rejects(&attrs("#[doc = \"x\"]"), FIELD));
    }
}
