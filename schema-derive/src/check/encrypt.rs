//! The rules of `#[encrypt(...)]`: which fields may hold ciphertext. The
//! server sees an encrypted field as one opaque binary, so nothing the
//! server itself must read may be encrypted (`_id`, a shard key, a
//! reference or link it joins on, a time series' or a bucket's own fields,
//! the version and timestamps it stamps), and a random-encrypted field,
//! which no query can match, takes no index. Each rule is one function;
//! each message says why and what to write instead.

use syn::ext::IdentExt;

use crate::ast::{Data, Derive, Field, Input};
use crate::attr::{EncryptAttr, EncryptKind, FieldKind, KeyName};
use crate::ctxt::Ctxt;

/// Runs every rule on each encrypted field.
pub(super) fn check(cx: &Ctxt, input: &Input) {
    for field in input.all_fields() {
        let Some(encrypt) = &field.encrypt else {
            continue;
        };
        if !on_a_document(cx, input, encrypt) {
            continue;
        }
        not_the_id(cx, input, field, encrypt);
        not_a_relation(cx, field, encrypt);
        not_a_shard_key(cx, input, field, encrypt);
        not_a_series_or_bucket_field(cx, input, field, encrypt);
        not_a_stamp(cx, input, field, encrypt);
        random_takes_no_index(cx, input, field, encrypt);
    }
}

/// On a named field of a struct (a document or a sub-document); a
/// variant's field is not encrypted on its own (yet): the document
/// encrypts the whole enum.
fn on_a_document(cx: &Ctxt, input: &Input, encrypt: &EncryptAttr) -> bool {
    if let Data::Struct(_) = input.data {
        return true;
    }
    cx.error_at(
        encrypt.span,
        "`#[encrypt]` goes on a named field of a struct (a `#[derive(Document)]` or a `#[derive(Embedded)]` struct): a field of an enum's variant or of a tuple struct is not encrypted on its own; encrypt the whole value where the document holds it, with `#[encrypt(random)]` on that field",
    );
    false
}

/// `_id`: the server looks documents up by it, and its index is unique.
fn not_the_id(cx: &Ctxt, input: &Input, field: &Field, encrypt: &EncryptAttr) {
    if input.derive == Derive::Document && field.is_stored() && field.stored == "_id" {
        field.flag();
        cx.error_at(
            encrypt.span,
            "`_id` cannot be encrypted: the server finds, indexes and shards documents by it; keep the `_id` plain (a generated `ObjectId`) and encrypt the fields that hold the secret",
        );
    }
}

/// A reference or a many-to-many link: joins, deletes and links match the
/// other side's plain `_id`.
fn not_a_relation(cx: &Ctxt, field: &Field, encrypt: &EncryptAttr) {
    let what = match field.kind {
        FieldKind::Reference(_) => "`#[reference]`",
        FieldKind::ManyToMany(_) => "`#[many_to_many]`",
        _ => return,
    };
    field.flag();
    cx.error_at(
        encrypt.span,
        format!("a {what} field cannot be encrypted: its ids are matched against the other model's plain `_id` (joins, delete policies, links); encrypt the referenced model's secret fields instead"),
    );
}

/// A shard key field: the cluster routes documents by its plain value.
fn not_a_shard_key(cx: &Ctxt, input: &Input, field: &Field, encrypt: &EncryptAttr) {
    let Some(key) = &input.attrs.shard_key else {
        return;
    };
    if key.fields.iter().any(|k| k.ident.unraw() == field.name) {
        field.flag();
        cx.error_at(
            encrypt.span,
            format!("`{}` is in the shard key and cannot be encrypted: the cluster routes and splits documents by its value; shard on a field that is not secret", field.name),
        );
    }
}

/// A time series' time and meta fields, a bucket's parent, items, count
/// and sequence: the server (or the bucket helpers) read them.
fn not_a_series_or_bucket_field(cx: &Ctxt, input: &Input, field: &Field, encrypt: &EncryptAttr) {
    let named = |ident: Option<&syn::Ident>| ident.is_some_and(|i| i.unraw() == field.name);
    let role = match (&input.attrs.timeseries, &input.attrs.bucket) {
        (Some(series), _) if named(series.time.as_ref()) => "the time series' `time` field",
        (Some(series), _) if named(series.meta.as_ref()) => "the time series' `meta` field",
        (_, Some(bucket)) => match bucket.roles().into_iter().find(|(_, i)| named(*i)) {
            Some((role, _)) => match role {
                "parent" => "the bucket's `parent` field",
                "items" => "the bucket's `items` field",
                "count" => "the bucket's `count` field",
                _ => "the bucket's `seq` field",
            },
            None => return,
        },
        _ => return,
    };
    field.flag();
    cx.error_at(
        encrypt.span,
        format!("`{}` is {role} and cannot be encrypted: the server groups, orders and counts documents by it; encrypt the measurement's or the item's secret fields instead", field.name),
    );
}

/// The version and timestamp fields (the helpers stamp them with `$inc`
/// and `$set`).
fn not_a_stamp(cx: &Ctxt, input: &Input, field: &Field, encrypt: &EncryptAttr) {
    let version = input
        .attrs
        .version
        .as_ref()
        .is_some_and(|(v, _)| *v == field.name);
    let stamped = input.attrs.timestamps.is_some()
        && matches!(field.name.as_str(), "created_at" | "updated_at");
    let what = if version {
        "the `version` field, which every update increments on the server"
    } else if stamped {
        "a `timestamps` field, which every write sets on the server"
    } else {
        return;
    };
    field.flag();
    cx.error_at(
        encrypt.span,
        format!(
            "`{}` is {what}, and cannot be encrypted; encrypt a field the application alone writes",
            field.name
        ),
    );
}

/// A random-encrypted field takes no index: no query can match its
/// ciphertexts, so the index would only cost writes.
fn random_takes_no_index(cx: &Ctxt, input: &Input, field: &Field, encrypt: &EncryptAttr) {
    if encrypt.kind != EncryptKind::Random {
        return;
    }
    for index in &input.attrs.indexes {
        let on_it = index.keys.iter().any(|key| key_is_on(&key.name, field))
            || index.partial.iter().any(|cond| key_is_on(&cond.key, field));
        if on_it {
            field.flag();
            cx.error_at(
                index.span,
                format!("`{}` is `#[encrypt(random)]` and takes no index: its ciphertext differs every time, so no query can use one; declare it `#[encrypt(deterministic)]` to index and find it by equality, or drop it from the index", field.name),
            );
        }
    }
}

/// Whether an index key (or partial condition) names `field` or a path
/// below it.
fn key_is_on(key: &KeyName, field: &Field) -> bool {
    match key {
        KeyName::Field(ident) => ident.unraw() == field.name,
        KeyName::Path(lit) => {
            let path = lit.value();
            path == field.stored || path.starts_with(&format!("{}.", field.stored))
        }
        KeyName::Nested(nested) => nested.path[0].unraw() == field.name,
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::check::testing::messages;

    #[test]
    fn what_may_be_encrypted() {
        let ok = parse_quote! {
            #[document(collection = "customers", index(keys(ssn = asc)))]
            struct Customer {
                #[serde(rename = "_id")] id: String,
                #[encrypt(deterministic)] ssn: String,
                #[encrypt(random)] notes: String,
            }
        };
        assert!(messages(Derive::Document, &ok, check).is_empty());
        let bad = parse_quote! {
            #[document(collection = "customers", index(keys(notes = asc)), shard_key(region))]
            struct Customer {
                #[serde(rename = "_id")] #[encrypt(deterministic)] id: String,
                #[encrypt(random)] notes: String,
                #[encrypt(deterministic)] region: String,
                #[reference(index)] #[encrypt(deterministic)] owner: String,
            }
        };
        let found = messages(Derive::Document, &bad, check);
        assert_eq!(found.len(), 4, "{found:#?}");
        assert!(
            found[0].starts_with("`_id` cannot be encrypted"),
            "{found:?}"
        );
        assert!(found[1].contains("takes no index"), "{found:?}");
        assert!(found[2].contains("shard key"), "{found:?}");
        assert!(found[3].starts_with("a `#[reference]` field"), "{found:?}");
        let nested = parse_quote! {
            struct Address { #[encrypt(random)] street: String }
        };
        assert!(messages(Derive::Embedded, &nested, check).is_empty());
        let variant = parse_quote! {
            enum Contact { Phone { #[encrypt(random)] number: String } }
        };
        let found = messages(Derive::Embedded, &variant, check);
        assert!(found[0].starts_with("`#[encrypt]` goes on a named field of a struct"));
    }
}
