//! The rules of `#[reference(on_delete = "...")]`: a policy names the
//! parent it follows, and one that clears the reference has somewhere to
//! put the absence. One function per rule; the cycle of cascades across
//! models is refused when the schema is built (`schema_core::delete_policy`).

use super::report::{checked_fields, report};
use crate::ast::Input;
use crate::attr::{FieldKind, OnDelete};
use crate::ctxt::Ctxt;
use crate::ty;

pub(super) fn check(cx: &Ctxt, input: &Input) {
    policy_names_its_parent(cx, input);
    clearing_needs_an_option(cx, input);
}

/// Deleting a parent finds its children through the reference: the
/// policy needs the parent's type (`to = User`) to know whose deletion
/// it follows.
fn policy_names_its_parent(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        let FieldKind::Reference(reference) = &field.kind else {
            continue;
        };
        if let (Some((policy, span)), None) = (reference.on_delete, &reference.to) {
            report(
                cx,
                field,
                span,
                format!(
                    "`on_delete = \"{}\"` needs the parent's type, to know whose deletion it follows: `#[reference(index, to = Parent, on_delete = \"{}\")]`",
                    policy.name(),
                    policy.name()
                ),
            );
        }
    }
}

/// `set_null` and `unset` leave the child without a parent: its reference
/// must be an `Option`, or the child would no longer decode.
fn clearing_needs_an_option(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        let FieldKind::Reference(reference) = &field.kind else {
            continue;
        };
        let Some((policy, span)) = reference.on_delete else {
            continue;
        };
        if matches!(policy, OnDelete::SetNull | OnDelete::Unset) && !ty::is_option(field.ty) {
            report(
                cx,
                field,
                span,
                format!(
                    "`on_delete = \"{}\"` clears `{}` when its parent is deleted, so the field must be an `Option<...>` (written as such, not through an alias); keep the type and use \"cascade\" or \"restrict\" instead",
                    policy.name(),
                    field.label
                ),
            );
        }
    }
}
