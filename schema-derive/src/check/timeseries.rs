//! The rules of `#[document(timeseries(...))]`: its fields exist and can
//! play their roles, and the model declares nothing the server refuses on a
//! time-series collection (see `schema_core::timeseries`). One
//! function per rule.

use syn::ext::IdentExt;

use super::report::report;
use crate::ast::{Derive, Input};
use crate::attr::{FieldKind, OnDelete, TimeSeriesAttr};
use crate::ctxt::Ctxt;
use crate::ty;

pub(super) fn check(cx: &Ctxt, input: &Input) {
    let Some(ts) = &input.attrs.timeseries else {
        return;
    };
    if input.derive != Derive::Document {
        cx.error_at(
            ts.span,
            "`timeseries` belongs to a root document (`#[derive(Document)]`): it is how its collection is stored",
        );
        return;
    }
    time_is_a_date(cx, input, ts);
    meta_is_a_field_of_its_own(cx, input, ts);
    timeseries_has_no_unique_or_ttl_index(cx, input);
    timeseries_is_not_updated(cx, input, ts);
    clearing_reference_is_refused(cx, input, ts);
}

/// The time field is a stored, required `bson::DateTime`: the server
/// refuses a measurement without one.
fn time_is_a_date(cx: &Ctxt, input: &Input, ts: &TimeSeriesAttr) {
    let (Some(name), Some(ident)) = (ts.time_name(), ts.time.as_ref()) else {
        return;
    };
    let model = input.ident.unraw();
    let Some(field) = input.field_named(&name) else {
        cx.error_at(
            ident.span(),
            format!("`timeseries(time = {name})`: `{model}` has no field `{name}`; name its `bson::DateTime` field"),
        );
        return;
    };
    let date = ty::bare_name(field.ty).as_deref() == Some("DateTime");
    if !field.is_stored() || field.stored == "_id" || !date {
        report(
            cx,
            field,
            field.span(),
            format!("`timeseries(time = {name})`: every measurement needs its time, so `{name}` must be a stored `bson::DateTime` (not an `Option`, not the `_id`)"),
        );
    }
}

/// The meta field is a stored field other than `_id` and the time field.
fn meta_is_a_field_of_its_own(cx: &Ctxt, input: &Input, ts: &TimeSeriesAttr) {
    let (Some(name), Some(ident)) = (ts.meta_name(), ts.meta.as_ref()) else {
        return;
    };
    let model = input.ident.unraw();
    let Some(field) = input.field_named(&name) else {
        cx.error_at(
            ident.span(),
            format!("`timeseries(meta = {name})`: `{model}` has no field `{name}`; name the field that says which series a measurement belongs to"),
        );
        return;
    };
    if !field.is_stored() || field.stored == "_id" || Some(&name) == ts.time_name().as_ref() {
        report(
            cx,
            field,
            ident.span(),
            format!("`timeseries(meta = {name})`: the meta field is a stored field other than the `_id` and the time (the server refuses both)"),
        );
    }
}

/// A time-series collection takes no unique index and no TTL index (the
/// server refuses both, code 72): expiry is `timeseries(expire_after = N)`.
fn timeseries_has_no_unique_or_ttl_index(cx: &Ctxt, input: &Input) {
    for index in &input.attrs.indexes {
        if index.unique {
            cx.error_at(index.span, "a time-series collection takes no unique index (the server refuses it, and does not keep `_id`s unique either)");
        }
        if let Some((_, at)) = index.expire_after {
            cx.error_at(at, "a time-series collection takes no TTL index: expire measurements with `timeseries(expire_after = N)`");
        }
    }
    for field in input.struct_fields() {
        if let FieldKind::Reference(reference) = &field.kind {
            if reference.unique {
                report(cx, field, reference.span, "a time-series collection takes no unique index: `#[reference(unique)]` cannot hold there");
            }
        }
    }
}

/// The server updates a measurement only on its meta field, by
/// multi-update: what the helpers keep by updating a document (a version,
/// timestamps, both sides of a link, a bucket) cannot be declared.
fn timeseries_is_not_updated(cx: &Ctxt, input: &Input, ts: &TimeSeriesAttr) {
    let why = "the server does not update a time-series measurement (only its meta field, by multi-update)";
    if input.attrs.version.is_some() || input.attrs.timestamps.is_some() {
        cx.error_at(
            ts.span,
            format!("`timeseries` keeps no `version` or `timestamps`: {why}"),
        );
    }
    if let Some(bucket) = &input.attrs.bucket {
        cx.error_at(bucket.span, "`bucket` and `timeseries` are two ways to group measurements: a time series is bucketed by the server; give one");
    }
    for field in input.struct_fields() {
        if let FieldKind::ManyToMany(link) = &field.kind {
            report(
                cx,
                field,
                link.span,
                format!("`#[many_to_many]` on a time series: a link adds ids to a stored measurement, and {why}; keep the links on the other model (`one_sided`) or in a `Through` collection"),
            );
        }
    }
}

/// A reference that a delete of its parent sets to null or unsets is
/// written in place, in batches of children named by `_id`; the server
/// updates a measurement only by a filter on its meta field alone (code 72
/// otherwise, and the parent is left), so a time series' references are
/// deleted with their parent or keep it (`cascade`, `restrict`).
fn clearing_reference_is_refused(cx: &Ctxt, input: &Input, ts: &TimeSeriesAttr) {
    for field in input.struct_fields() {
        let FieldKind::Reference(reference) = &field.kind else {
            continue;
        };
        let Some((policy @ (OnDelete::SetNull | OnDelete::Unset), span)) = reference.on_delete
        else {
            continue;
        };
        let name = &field.name;
        let policy = policy.name();
        let meta = if ts.meta_name().as_deref() == Some(name.as_str()) {
            " (the meta field too: `Schema::delete` names them by `_id`, in batches)"
        } else {
            ""
        };
        report(
            cx,
            field,
            span,
            format!("a time series takes `on_delete = \"cascade\"` (the measurements go with their parent) or `\"restrict\"` (the parent's delete is refused while they exist), not `\"{policy}\"`: clearing `{name}` would update measurements{meta}, and the server updates a measurement only by a filter on its meta field alone (code 72, and the parent would stay)"),
        );
    }
}
