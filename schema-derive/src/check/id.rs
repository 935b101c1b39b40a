//! The rules of `_id`: a root document has one, it is one value (not null,
//! not an array), and it, a reference and a many-to-many id array are stored
//! as their Rust type encodes them. [`not_one_value`] is shared with the
//! index and shard key rules.

use super::report::{checked_fields, report, written};
use crate::ast::{Data, Derive, Input};
use crate::attr::FieldKind;
use crate::ctxt::Ctxt;
use crate::ty::{self, Growable};

/// Every stored document has an `_id`; the model must say which field holds it.
/// Not reported when a serde attribute has a typo (reported by serde or the
/// compiler): the `rename = "_id"` may be in it.
pub(super) fn document_has_an_id(cx: &Ctxt, input: &Input) {
    if input.derive == Derive::Document
        && matches!(input.data, Data::Struct(_))
        && input.id_field().is_none()
        && !input.serde_typo
    {
        cx.error_spanned_by(
            input.ident,
            "a document needs an `_id` field: add `#[serde(rename = \"_id\")] id: ...`",
        );
    }
}

/// `_id` is one value that the application sets: never null (a second
/// document stored with `_id: null` is a duplicate key), never an array (the
/// server refuses it). Types seen through an alias are caught by the
/// `IdProbe` assertion in the generated code.
pub(super) fn id_is_one_value(cx: &Ctxt, input: &Input) {
    if input.derive != Derive::Document {
        return;
    }
    let Some(id) = input.id_field() else {
        return;
    };
    if let Some(why) = id_refusal(id.ty) {
        id.flag();
        cx.error_spanned_by(id.ty, format!("`_id` (field `{}`) {why}", id.label));
    }
}

/// `_id`, a reference and a many-to-many id array are compared with the
/// values the helpers encode from the Rust type (`get`, `parents_of`, the
/// link helpers, `Field::eq`); a custom serializer stores something else
/// (`bson::serde_helpers::object_id::AsHexString` stores a string), so every lookup
/// would silently find nothing. `deserialize_with` alone stores the type as
/// it is and stays allowed.
pub(super) fn ids_are_stored_as_their_type(cx: &Ctxt, input: &Input) {
    if input.derive != Derive::Document {
        return;
    }
    for field in checked_fields(input) {
        if !field.is_stored() || !field.serde.custom_serializer {
            continue;
        }
        let (what, looked_up_by) = match &field.kind {
            _ if field.stored == "_id" => (
                "`_id`",
                "`get`, `delete`, `replace` and every reference to this model",
            ),
            FieldKind::Reference(_) => ("a `#[reference]`", "`parents_of` and `children`"),
            FieldKind::ManyToMany(_) => (
                "a `#[many_to_many]` id array",
                "the link helpers and `verify`",
            ),
            _ => continue,
        };
        report(
            cx,
            field,
            field.span(),
            format!(
                "`{}` is {what} with `#[serde(with)]`/`serialize_with`: ids are looked up by {looked_up_by} as their Rust type `{}` encodes them, so a value stored another way is never found; remove the custom serializer and give the field the type that is stored (`deserialize_with` alone is fine)",
                field.label,
                written(field.ty),
            ),
        );
    }
}

/// Why a type as written cannot be an `_id`, or `None` when it may be.
pub(super) fn id_refusal(ty: &syn::Type) -> Option<String> {
    let written = written(ty);
    let one_value = "a document's `_id` is one value that the application sets, such as `ObjectId` (set with `ObjectId::new()`), a `String` or a `#[derive(Embedded)]` struct";
    Some(match not_one_value(ty)? {
        NotOneValue::Option => format!(
            "is `{written}`: `None` would be stored as `_id: null`, and the second such document fails with a duplicate key error (E11000); {one_value}"
        ),
        NotOneValue::Unit => format!("is `()`, which is stored as null; {one_value}"),
        NotOneValue::Array => format!(
            "is `{written}`, which is stored as an array: the server refuses an array `_id`; {one_value}"
        ),
        NotOneValue::FreeForm => format!(
            "is `{written}`, a free-form value that may be null or an array; {one_value}"
        ),
    })
}

/// How a type as written fails to be one value every document holds.
pub(super) enum NotOneValue {
    /// `Option<T>`: may be null.
    Option,
    /// `()`: stored as null.
    Unit,
    /// A tuple, an array, a slice or a growable array: stored as an array.
    Array,
    /// `Bson`: anything.
    FreeForm,
}

/// Whether a type as written is one value (`None`), and how not otherwise.
/// A type alias hides what it names: the generated code's `IdProbe`
/// assertions catch those.
pub(super) fn not_one_value(ty: &syn::Type) -> Option<NotOneValue> {
    if ty::is_option(ty) {
        return Some(NotOneValue::Option);
    }
    match ty::peel(ty) {
        syn::Type::Tuple(tuple) if tuple.elems.is_empty() => Some(NotOneValue::Unit),
        syn::Type::Tuple(_) | syn::Type::Array(_) | syn::Type::Slice(_) => Some(NotOneValue::Array),
        syn::Type::Path(path)
            if path
                .path
                .segments
                .last()
                .is_some_and(|last| last.ident == "Bson" && last.arguments.is_none()) =>
        {
            Some(NotOneValue::FreeForm)
        }
        other => matches!(ty::growable(other), Some(Growable::Array)).then_some(NotOneValue::Array),
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::check::testing::{assert_one, messages, run};

    #[test]
    fn a_document_has_an_id() {
        let rule = super::document_has_an_id;
        let without = parse_quote!(
            struct Post {
                a: i32,
            }
        );
        assert_one(
            &messages(Derive::Document, &without, rule),
            "a document needs an `_id` field: add `#[serde(rename = \"_id\")] id: ...`",
        );
        assert!(messages(Derive::Embedded, &without, rule).is_empty());
        let with = parse_quote! {
            struct Post {
                #[serde(rename = "_id")]
                id: ObjectId,
            }
        };
        assert!(messages(Derive::Document, &with, rule).is_empty());
        // The `rename = "_id"` may be in the typo, which serde reports.
        let typo = parse_quote! {
            struct Post {
                #[serde(renam = "_id")]
                id: ObjectId,
            }
        };
        assert!(messages(Derive::Document, &typo, rule).is_empty());
    }

    #[test]
    fn the_id_is_one_value() {
        let rule = super::id_is_one_value;
        for (ty, why) in [
            (
                quote::quote!(Option<ObjectId>),
                "is `Option<ObjectId>`: `None` would be stored as `_id: null`",
            ),
            (quote::quote!(()), "is `()`, which is stored as null"),
            (
                quote::quote!(Vec<String>),
                "is `Vec<String>`, which is stored as an array: the server refuses an array `_id`",
            ),
            (
                quote::quote!((String, String)),
                "is `(String, String)`, which is stored as an array",
            ),
            (
                quote::quote!(Bson),
                "is `Bson`, a free-form value that may be null or an array",
            ),
        ] {
            let input = parse_quote! {
                struct Post {
                    #[serde(rename = "_id")]
                    id: #ty,
                }
            };
            let (model, found) = run(Derive::Document, &input, rule);
            assert_one(&found, &format!("`_id` (field `id`) {why}"));
            assert!(model.all_fields()[0].is_flagged());
        }
        let one = parse_quote! {
            struct Post {
                #[serde(rename = "_id")]
                id: ObjectId,
            }
        };
        assert!(messages(Derive::Document, &one, rule).is_empty());
    }

    #[test]
    fn ids_are_stored_as_their_type() {
        let rule = super::ids_are_stored_as_their_type;
        let input = parse_quote! {
            #[document(collection = "posts")]
            struct Post {
                #[serde(rename = "_id", with = "hex")]
                id: ObjectId,
                #[reference(index, to = User)]
                #[serde(serialize_with = "hex::serialize")]
                author: ObjectId,
                #[many_to_many(one_sided, to = Tag)]
                #[serde(with = "hex")]
                tags: Vec<ObjectId>,
            }
        };
        let found = messages(Derive::Document, &input, rule);
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found[0].starts_with(
            "`id` is `_id` with `#[serde(with)]`/`serialize_with`: ids are looked up by `get`"
        ));
        assert!(found[1].starts_with("`author` is a `#[reference]` with"));
        assert!(found[2].starts_with("`tags` is a `#[many_to_many]` id array with"));
        let read_only = parse_quote! {
            struct Post {
                #[serde(rename = "_id", deserialize_with = "hex")]
                id: ObjectId,
            }
        };
        assert!(messages(Derive::Document, &read_only, rule).is_empty());
    }

    #[test]
    fn not_one_value_reads_the_type_as_written() {
        let one: syn::Type = parse_quote!(bson::oid::ObjectId);
        assert!(not_one_value(&one).is_none());
        let array: syn::Type = parse_quote!([u8; 12]);
        assert!(matches!(not_one_value(&array), Some(NotOneValue::Array)));
        let free: syn::Type = parse_quote!(bson::Bson);
        assert!(matches!(not_one_value(&free), Some(NotOneValue::FreeForm)));
    }
}
