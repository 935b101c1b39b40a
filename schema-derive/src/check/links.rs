//! The rules of `#[reference]` and `#[many_to_many]`: a reference holds one
//! id and a link an array of ids (never null), both on a root document, and
//! a reference's `sort` names another field.

use super::keys::check_field_key;
use super::report::{checked_fields, report};
use crate::ast::{Derive, Input};
use crate::attr::{FieldKind, MANY_TO_MANY, REFERENCE};
use crate::ctxt::Ctxt;
use crate::ty::{self, Growable};

/// A reference is one id held by the child; an array of ids is a
/// many-to-many link with its own bound.
pub(super) fn reference_holds_one_id(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        if let FieldKind::Reference(reference) = &field.kind {
            if ty::is_list(field.ty) || ty::growable(field.ty).is_some() {
                report(
                    cx,
                    field,
                    reference.span,
                    "`#[reference]` holds one id; for an array of ids use `#[many_to_many(...)]`",
                );
            }
        }
    }
}

/// A many-to-many link is an array of ids.
pub(super) fn many_to_many_is_on_an_array(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        if let FieldKind::ManyToMany(link) = &field.kind {
            let found = match (ty::scalar_name(field.ty), ty::growable(field.ty)) {
                (Some(scalar), _) => format!("a `{scalar}`"),
                (_, Some(Growable::Map)) => "a map".to_owned(),
                _ => continue,
            };
            report(
                cx,
                field,
                link.span,
                format!(
                    "`#[many_to_many]` needs an array of ids such as `Vec<ObjectId>`; `{}` is {found}",
                    field.label
                ),
            );
        }
    }
}

/// A many-to-many id array is never null: no links is an empty array. The
/// link helpers' `$addToSet` and `$pull` fail on a null field, so
/// `Option<Vec<_>>` is refused here rather than at the first link.
pub(super) fn many_to_many_is_never_null(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        if let FieldKind::ManyToMany(link) = &field.kind {
            if ty::is_option(field.ty) {
                report(
                    cx,
                    field,
                    link.span,
                    format!(
                        "`#[many_to_many]` id arrays are never null: write `{}` as `Vec<Id>` \
                         (no links is an empty array; add `#[serde(default)]` to read documents \
                         stored without it), not `Option<Vec<Id>>`",
                        field.label
                    ),
                );
            }
        }
    }
}

/// References and many-to-many links create indexes and relations on a
/// collection, so they belong to root documents. The message says what to
/// write instead: the id as a plain field (or a bounded id array), indexed
/// from the root document by its dotted path.
pub(super) fn links_are_on_documents(cx: &Ctxt, input: &Input) {
    // `collection` on an `Embedded` type: it is also a root document.
    if input.derive == Derive::Document || input.attrs.collection.is_some() {
        return;
    }
    for field in input.all_fields() {
        let (name, span, instead) = match &field.kind {
            FieldKind::Reference(r) => (
                REFERENCE,
                r.span,
                format!("keep `{}` as a plain field (no attribute)", field.label),
            ),
            FieldKind::ManyToMany(l) => (
                MANY_TO_MANY,
                l.span,
                format!(
                    "keep `{}` as a bounded id array, `#[embed(max = N)]`",
                    field.label
                ),
            ),
            _ => continue,
        };
        report(
            cx,
            field,
            span,
            format!(
                "`#[{name}]` is only supported on `#[derive(Document)]` fields: its index lives on a collection, and a sub-document has none. Instead, {instead}, and index it from the document that embeds `{ident}` with `#[document(index(keys(\"<field>.{stored}\" = asc)))]` (`<field>`: the stored name of the field holding `{ident}`); or make `{ident}` a `#[derive(Document)]` in its own collection",
                ident = input.ident,
                stored = field.stored,
            ),
        );
    }
}

/// `sort(at = desc)` names another field of the same struct.
pub(super) fn reference_sort_is_a_field(cx: &Ctxt, input: &Input) {
    for field in input.struct_fields() {
        let FieldKind::Reference(reference) = &field.kind else {
            continue;
        };
        let Some(sort) = &reference.sort else {
            continue;
        };
        if !check_field_key(cx, input, &sort.name) {
            continue;
        }
        if input.stored_key(&sort.name) == field.stored {
            cx.error_at(
                sort.name.span(),
                "`sort` must name another field: the reference is already the first key",
            );
        }
    }
}

