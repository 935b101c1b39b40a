//! Whether a serde attribute of the input has a typo that serde or the
//! compiler reports: an `#[serde(...)]` key that serde does not know (such as
//! `skip_serializing_iff`; serde then emits no `Serialize`/`Deserialize`
//! impl), a value serde cannot read (`rename_all = "camelcase"`, a
//! `with = "..."` that is no path), or an attribute name one edit from
//! `serde` (`#[sered(...)]`, which the compiler reports as unknown). The
//! derive uses this to add no error of its own on top: no missing `_id` (the
//! `rename` may be in the typo), no unimplemented serde traits (see
//! `expand::document`).
//!
//! The key lists are serde_derive 1.0's. A key added by a later serde and
//! missing here is harmless: the only effect of a wrong "rejected" is a
//! `Document` impl that holds only where the serde impls exist, which they do.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, DeriveInput, LitStr, Token};

use super::RenameRule;

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
/// misspelt `serde`. Read from the syn input alone (the container, every
/// variant, every field of the struct or of a variant), so that the parsed
/// model can call it without this module knowing the model.
pub fn any(input: &DeriveInput) -> bool {
    if rejects(&input.attrs, CONTAINER) {
        return true;
    }
    let fields: Vec<&syn::Field> = match &input.data {
        syn::Data::Struct(data) => data.fields.iter().collect(),
        syn::Data::Enum(data) => {
            if data.variants.iter().any(|v| rejects(&v.attrs, VARIANT)) {
                return true;
            }
            data.variants.iter().flat_map(|v| v.fields.iter()).collect()
        }
        syn::Data::Union(_) => Vec::new(),
    };
    fields.iter().any(|field| rejects(&field.attrs, FIELD))
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
                    if !known.iter().any(|key| meta.path.is_ident(key)) || !readable(&meta) {
                        unknown = true;
                    }
                    crate::attr::skip_rest(meta.input);
                    Ok(())
                });
                unknown || parsed.is_err()
            })
}

/// Whether serde can read the value of a known key: a casing it knows
/// (`rename_all`, `rename_all_fields`, also as `(serialize = "..",
/// deserialize = "..")`), a path (`with`, `serialize_with`,
/// `deserialize_with`, `skip_serializing_if`, `default = ".."`, `getter`),
/// a type (`from`, `try_from`, `into`). Other values are left to serde,
/// read as valid; what is read is consumed.
fn readable(meta: &ParseNestedMeta) -> bool {
    let path = &meta.path;
    if path.is_ident("rename_all") || path.is_ident("rename_all_fields") {
        return values(meta, |lit| RenameRule::parse(&lit.value()).is_some());
    }
    let is = |keys: &[&str]| keys.iter().any(|key| path.is_ident(key));
    if is(&[
        "with",
        "serialize_with",
        "deserialize_with",
        "skip_serializing_if",
        "default",
        "getter",
    ]) {
        return values(meta, |lit| lit.parse::<syn::ExprPath>().is_ok());
    }
    if is(&["from", "try_from", "into"]) {
        return values(meta, |lit| lit.parse::<syn::Type>().is_ok());
    }
    true
}

/// `key = "value"`, or `key(serialize = "..", deserialize = "..")`: whether
/// every string given passes `ok` (a key with no value passes).
fn values(meta: &ParseNestedMeta, ok: impl Fn(&LitStr) -> bool) -> bool {
    if meta.input.peek(Token![=]) {
        return match meta.value().and_then(|v| v.parse::<LitStr>()) {
            Ok(lit) => ok(&lit),
            Err(_) => false,
        };
    }
    if !meta.input.peek(syn::token::Paren) {
        return true;
    }
    let mut all = true;
    let parsed = meta.parse_nested_meta(|inner| {
        if inner.input.peek(Token![=]) {
            match inner.value().and_then(|v| v.parse::<LitStr>()) {
                Ok(lit) => all &= ok(&lit),
                Err(_) => all = false,
            }
        }
        crate::attr::skip_rest(inner.input);
        Ok(())
    });
    all && parsed.is_ok()
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

    #[test]
    fn values_serde_cannot_read_are_rejected() {
        assert!(rejects(
            &attrs(r#"#[serde(rename_all = "camelcase")]"#),
            CONTAINER
        ));
        assert!(rejects(
            &attrs(r#"#[serde(rename_all(serialize = "camelCase", deserialize = "snake"))]"#),
            CONTAINER
        ));
        assert!(rejects(
            &attrs(r#"#[serde(rename_all_fields = "Camel")]"#),
            CONTAINER
        ));
        assert!(rejects(&attrs(r#"#[serde(rename_all = 1)]"#), CONTAINER));
        assert!(rejects(&attrs(r#"#[serde(with = "not a path")]"#), FIELD));
        assert!(rejects(
            &attrs(r#"#[serde(skip_serializing_if = "")]"#),
            FIELD
        ));
        assert!(rejects(&attrs(r#"#[serde(into = "Vec<")]"#), CONTAINER));
        assert!(!rejects(
            &attrs(
                r#"#[serde(rename_all(serialize = "camelCase"), rename_all_fields = "kebab-case")]"#
            ),
            CONTAINER
        ));
        assert!(!rejects(
            &attrs(r#"#[serde(default, with = "bson::serde_helpers::u64::AsI64")]"#),
            FIELD
        ));
        assert!(!rejects(&attrs(r#"#[serde(default = "Vec::new")]"#), FIELD));
        assert!(!rejects(
            &attrs(r#"#[serde(into = "Vec<u8>", tag = "t")]"#),
            CONTAINER
        ));
    }
}
