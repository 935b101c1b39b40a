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

