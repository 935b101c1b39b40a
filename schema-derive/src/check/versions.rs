//! The rules of `#[document(migrate_from(V1, V2))]` (see
//! `schema_core::versions`) that the derive can see in the model itself:
//! it is on a root document that the helpers write whole (not a time
//! series, not a bucket), none of its fields is stored under the version
//! field's name, and none is a link, a copy or a reference its parent's
//! delete sets to null or unsets (their helpers write part of a document,
//! whatever version it is stored at). That each earlier shape
//! is a model of the same collection, and that every step is implemented,
//! is checked by the compiler on the generated code.

use crate::ast::{Derive, Input};
use crate::attr::{FieldKind, OnDelete};
use crate::ctxt::Ctxt;

/// The stored name of the version field (`schema_core::VERSION_FIELD`).
const VERSION_FIELD: &str = "schemaVersion";

pub(super) fn check(cx: &Ctxt, input: &Input) {
    let span = match (&input.attrs.migrate_from, &input.attrs.schema_version) {
        (Some((span, _)), _) | (None, Some((_, span))) => *span,
        (None, None) => return,
    };
    let older = input
        .attrs
        .migrate_from
        .as_ref()
        .map_or(0, |(_, o)| o.len());
    if let Some((current, at)) = input.attrs.schema_version {
        if usize::try_from(current).unwrap_or(usize::MAX) <= older {
            cx.error_at(
                at,
                format!("`schema_version = {current}` leaves no version for the {older} earlier shape(s) in `migrate_from`: the current version is above every earlier one (at least {})", older + 1),
            );
        }
    }
    if input.derive != Derive::Document {
        cx.error_at(
            span,
            "`migrate_from` belongs to a root document (`#[derive(Document)]`): a sub-document changes with the document that holds it",
        );
        return;
    }
    if input.attrs.timeseries.is_some() || input.attrs.bucket.is_some() {
        cx.error_at(
            span,
            "`migrate_from` on a time series or a bucket is not supported: their documents are written in parts, by the server or by the bucket's pushes, never whole at the current version",
        );
    }
    for field in input.struct_fields() {
        if field.stored == VERSION_FIELD {
            cx.error_at(
                field.span(),
                format!("`{}` is stored as `{VERSION_FIELD}`, the field a versioned model keeps its schema version in: rename it (`#[serde(rename = \"...\")]`)", field.name),
            );
        }
        if older == 0 {
            continue;
        }
        let part = match (&field.kind, &field.copy) {
            (FieldKind::ManyToMany(_), _) => {
                "a `#[many_to_many]` link (the link helpers add and remove ids in place)"
            }
            (_, Some(_)) => "a copy (the copy helpers rewrite it in place)",
            (FieldKind::Reference(r), _)
                if matches!(r.on_delete, Some((OnDelete::SetNull | OnDelete::Unset, _))) =>
            {
                "a reference that a delete of its parent writes in place (`on_delete = \"set_null\"` or `\"unset\"`; `restrict` and `cascade` work)"
            }
            _ => continue,
        };
        cx.error_at(
            field.span(),
            format!("`{}` is {part} on a model with earlier shapes (`migrate_from`): a write of part of a document could reach one stored at an earlier version; migrate the documents first, then add it", field.name),
        );
    }
}
