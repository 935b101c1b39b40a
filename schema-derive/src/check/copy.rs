//! The rules of `#[copy(from = ..., field = ...)]` and `#[snapshot(of =
//! ..., field = ...)]` the derive can check from the struct alone: a copy
//! lives in a root document, copies through a reference or a link of the
//! same struct, holds one value for a reference and a bounded array for a
//! link, and is not itself the reference. Its type against the source
//! field's, and an array copy's bound against the link's, are checked by
//! the generated code (`expand::copy`). One function per rule.

use syn::ext::IdentExt;

use super::report::{checked_fields, report};
use crate::ast::{Derive, Field, Input};
use crate::attr::{CopyKind, FieldKind};
use crate::ctxt::Ctxt;
use crate::ty;

pub(super) fn check(cx: &Ctxt, input: &Input) {
    copy_is_on_a_document(cx, input);
    if input.derive != Derive::Document {
        return;
    }
    copy_is_stored(cx, input);
    copy_is_not_in_a_time_series(cx, input);
    copy_is_not_a_reference(cx, input);
    copy_is_from_a_reference_or_link(cx, input);
    copy_has_the_reference_shape(cx, input);
}

/// A copy is kept in sync by finding its holders through the reference's
/// index, which lives on a collection: a sub-document cannot hold one
/// (a snapshot can: it is never followed).
fn copy_is_on_a_document(cx: &Ctxt, input: &Input) {
    if input.derive == Derive::Document {
        return;
    }
    for field in input.struct_fields() {
        if let Some(copy) = field.copy.as_ref().filter(|c| c.kind == CopyKind::Follows) {
            report(
                cx,
                field,
                copy.span,
                "`#[copy]` belongs to a root document (`#[derive(Document)]`): its holders are found through their reference's index, on a collection; in a sub-document keep the value as it was with `#[snapshot(of = Model, field = name)]`, or move the copy to the root",
            );
        }
    }
}

/// A copy is written to the stored document: a field serde skips has
/// nowhere to hold it.
fn copy_is_stored(cx: &Ctxt, input: &Input) {
    for field in input.struct_fields() {
        if let Some(copy) = field.copy.as_ref().filter(|_| !field.is_stored()) {
            report(
                cx,
                field,
                copy.span,
                format!(
                    "`{}` is not stored (serde skips it): a `#[{}]` needs a stored field to hold the value",
                    field.label,
                    copy.name()
                ),
            );
        }
    }
}

/// A time series' measurements are written once: a copy that follows its
/// source would have to update them.
fn copy_is_not_in_a_time_series(cx: &Ctxt, input: &Input) {
    if input.attrs.timeseries.is_none() {
        return;
    }
    for field in input.struct_fields() {
        if let Some(copy) = field.copy.as_ref().filter(|c| c.kind == CopyKind::Follows) {
            report(
                cx,
                field,
                copy.span,
                "a time series is not updated after a measurement is written, so a `#[copy]` there could not follow its source: keep the value as it was with `#[snapshot(of = Model, field = name)]`",
            );
        }
    }
}

/// A field is the reference or a copy through one, not both.
fn copy_is_not_a_reference(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        let Some(copy) = &field.copy else { continue };
        if matches!(
            field.kind,
            FieldKind::Reference(_) | FieldKind::ManyToMany(_)
        ) {
            report(
                cx,
                field,
                copy.span,
                format!(
                    "`{}` is a reference itself: a `#[{}]` goes on another field, the one that holds the copied value",
                    field.label,
                    copy.name()
                ),
            );
        }
    }
}

/// The field `from` names: `None` (reported) when it is not a field of
/// the struct.
fn from_field<'b, 'a>(cx: &Ctxt, input: &'b Input<'a>, field: &Field) -> Option<&'b Field<'a>> {
    let copy = field.copy.as_ref()?;
    let from = copy.from.as_ref()?;
    let name = from.unraw().to_string();
    let found = input.field_named(&name);
    if found.is_none() {
        cx.error_at(
            from.span(),
            format!(
                "`from = {name}`: `{}` has no field `{name}`; name its `#[reference(index, to = Model)]` or `#[many_to_many(to = Model)]` field",
                input.ident.unraw()
            ),
        );
    }
    found
}

/// `from` names a reference or a link that names its target (`to = T`):
/// the copy's source is that model.
fn copy_is_from_a_reference_or_link(cx: &Ctxt, input: &Input) {
    for field in input.struct_fields() {
        let Some(from) = from_field(cx, input, field) else {
            continue;
        };
        let Some(ident) = field.copy.as_ref().and_then(|c| c.from.as_ref()) else {
            continue;
        };
        let names_target = match &from.kind {
            FieldKind::Reference(r) => r.to.is_some(),
            FieldKind::ManyToMany(l) => l.to.is_some(),
            _ => {
                report(
                    cx,
                    field,
                    ident.span(),
                    format!(
                        "`from = {}` must name a `#[reference(index, to = Model)]` or `#[many_to_many(to = Model)]` field: `{}` is a plain field",
                        from.name, from.name
                    ),
                );
                continue;
            }
        };
        if !names_target {
            report(
                cx,
                field,
                ident.span(),
                format!(
                    "`from = {}`: the reference must name its target (`to = Model`), the model whose field the copy holds",
                    from.name
                ),
            );
        }
    }
}

/// A copy through a reference holds one value; through a link, one value
/// per distinct source value, an `#[embed(max = N)]` array (its bound
/// against the link's is checked by the generated code).
fn copy_has_the_reference_shape(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        let Some(copy) = field.copy.as_ref().filter(|c| c.kind == CopyKind::Follows) else {
            continue;
        };
        let Some(from) = copy
            .from
            .as_ref()
            .and_then(|f| input.field_named(&f.unraw().to_string()))
        else {
            continue;
        };
        let list = ty::is_list(field.ty) || ty::growable(field.ty).is_some();
        match (&from.kind, list) {
            (FieldKind::Reference(_), true) => report(
                cx,
                field,
                copy.span,
                format!(
                    "`{}` copies through the reference `{}`, which holds one id: the copy is one value, not an array",
                    field.label, from.name
                ),
            ),
            (FieldKind::ManyToMany(_), false) => report(
                cx,
                field,
                copy.span,
                format!(
                    "`{}` copies through the link `{}`, which holds many ids: the copy is a bounded array, `#[embed(max = N)] {}: Vec<...>`",
                    field.label, from.name, field.name
                ),
            ),
            _ => {}
        }
    }
}
