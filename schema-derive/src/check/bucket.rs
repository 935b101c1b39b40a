//! The rules of `#[document(bucket(...))]`: the fields it names exist and
//! can play their roles, and the rest of the model is what a bucket the
//! framework opens can hold. One function per rule.

use syn::ext::IdentExt;

use super::report::report;
use crate::ast::{Derive, Field, Input};
use crate::attr::{describe_bucket_role, BucketAttr, FieldKind, BUCKET, ITEMS};
use crate::ctxt::Ctxt;
use crate::ty;

pub(super) fn check(cx: &Ctxt, input: &Input) {
    let Some(bucket) = &input.attrs.bucket else {
        return;
    };
    if !bucket_is_on_a_document(cx, input, bucket) {
        return;
    }
    let roles = bucket_fields_are_declared(cx, input, bucket);
    if let [Some(parent), Some(items), Some(count), Some(seq)] = roles {
        bucket_items_are_a_bounded_list(cx, items);
        bucket_count_and_seq_are_integers(cx, count, "count");
        bucket_count_and_seq_are_integers(cx, seq, "seq");
        bucket_parent_is_one_value(cx, parent);
        bucket_id_is_an_object_id(cx, input);
        bucket_other_fields_are_optional(cx, input, &[parent, items, count, seq]);
    }
    bucket_has_no_stamps(cx, input, bucket);
}

/// A bucket is a root document: its buckets are the documents of its
/// collection.
fn bucket_is_on_a_document(cx: &Ctxt, input: &Input, bucket: &BucketAttr) -> bool {
    if input.derive == Derive::Document {
        return true;
    }
    cx.error_at(
        bucket.span,
        "`bucket` belongs to a root document (`#[derive(Document)]`): each bucket is one document of its collection",
    );
    false
}

/// Each role names a stored field of the model, a field of its own (not
/// `_id`, not one named for another role).
fn bucket_fields_are_declared<'a, 'b>(
    cx: &Ctxt,
    input: &'b Input<'a>,
    bucket: &BucketAttr,
) -> [Option<&'b Field<'a>>; 4] {
    let ident = input.ident.unraw();
    let mut out = [None; 4];
    let mut taken: Vec<&str> = Vec::new();
    for (slot, (role, named)) in out.iter_mut().zip(bucket.roles()) {
        let Some(named) = named else { continue };
        let name = named.unraw().to_string();
        let span = named.span();
        let Some(field) = input.field_named(&name) else {
            cx.error_at(
                span,
                format!(
                    "`bucket({role} = {name})`: `{ident}` has no field `{name}`; name the field that holds {}",
                    describe_bucket_role(role)
                ),
            );
            continue;
        };
        if !field.is_stored() {
            cx.error_at(
                span,
                format!(
                    "`{name}` is skipped by serde, so it cannot hold {}",
                    describe_bucket_role(role)
                ),
            );
        } else if field.stored == "_id" {
            cx.error_at(
                span,
                format!("`{name}` is the `_id`; `{role}` names another field"),
            );
        } else if taken.contains(&name.as_str()) {
            cx.error_at(span, format!("`{name}` already plays another role in `bucket`: each role has a field of its own"));
        } else {
            *slot = Some(field);
        }
        taken.push(field.name.as_str());
    }
    out
}

/// The items are a list bounded by `#[embed(max = N)]`: `N` is the bucket's
/// size, and a push appends (a set or a map has no order to page through).
fn bucket_items_are_a_bounded_list(cx: &Ctxt, items: &Field) {
    let name = &items.label;
    let bounded = match &items.kind {
        FieldKind::Embed(embed) => embed.max.is_some(),
        _ => false,
    };
    let list = matches!(
        ty::outer_name(items.ty).as_deref(),
        Some("Vec" | "VecDeque")
    );
    if !list {
        report(
            cx,
            items,
            items.span(),
            format!("`bucket({ITEMS} = {name})` holds the items in order: `{name}` must be a `Vec` or `VecDeque` (not an `Option`, a set or a map)"),
        );
    } else if !bounded {
        report(
            cx,
            items,
            items.span(),
            format!("`{name}` holds a bucket's items: give it `#[embed(max = N)]`, the most items one bucket holds"),
        );
    }
}

/// The count and the bucket's place are integers the server can `$inc` and
/// compare: `i32` or `i64`.
fn bucket_count_and_seq_are_integers(cx: &Ctxt, field: &Field, role: &str) {
    let ok = matches!(ty::bare_name(field.ty).as_deref(), Some("i32" | "i64"));
    if !ok {
        let name = &field.label;
        report(
            cx,
            field,
            field.span(),
            format!(
                "`bucket({role} = {name})`: `{name}` holds {}, so it must be an `i32` or an `i64`",
                describe_bucket_role(role)
            ),
        );
    }
}

/// The parent is one value, the same in every bucket of that parent: not an
/// `Option` (a bucket of no parent), not an array.
fn bucket_parent_is_one_value(cx: &Ctxt, parent: &Field) {
    if ty::is_option(parent.ty) || ty::is_list(parent.ty) {
        let name = &parent.label;
        report(
            cx,
            parent,
            parent.span(),
            format!("`bucket(parent = {name})`: `{name}` holds one parent's id, so it must be one value (not an `Option` or an array)"),
        );
    }
}

/// The framework opens buckets with an upsert, and the server gives a new
/// document an `ObjectId` `_id`: the model's `_id` must be one.
fn bucket_id_is_an_object_id(cx: &Ctxt, input: &Input) {
    let Some(id) = input.id_field() else { return };
    if ty::bare_name(id.ty).as_deref() != Some("ObjectId") {
        report(
            cx,
            id,
            id.span(),
            format!("a bucket's `_id` is made by the server when the framework opens the bucket: `{}` must be a `bson::oid::ObjectId`", id.label),
        );
    }
}

/// The model's other fields are its summary, which the framework does not
/// fill when it opens a bucket: each must be an `Option` (stored as null in
/// a new bucket).
fn bucket_other_fields_are_optional(cx: &Ctxt, input: &Input, roles: &[&Field]) {
    // The stamp fields are `bucket_has_no_stamps`'s to report.
    let version = input.attrs.version.as_ref().map(|(name, _)| name.as_str());
    let stamps = input.attrs.timestamps.map_or(&[][..], |_| {
        &[crate::stamp::CREATED_AT, crate::stamp::UPDATED_AT][..]
    });
    for field in input.struct_fields() {
        if version == Some(field.name.as_str()) || stamps.contains(&field.name.as_str()) {
            continue;
        }
        let role = roles.iter().any(|r| r.name == field.name);
        if role || !field.is_stored() || field.stored == "_id" || ty::is_option(field.ty) {
            continue;
        }
        let name = &field.label;
        report(
            cx,
            field,
            field.span(),
            format!("`{name}` is not one of `bucket`'s fields, and a bucket the framework opens cannot fill it: make it an `Option` (null in a new bucket), or keep it elsewhere"),
        );
    }
}

/// Pushes go through the bucket's own update, which keeps no version or
/// timestamps: `version` and `timestamps` would not be kept.
fn bucket_has_no_stamps(cx: &Ctxt, input: &Input, bucket: &BucketAttr) {
    if input.attrs.version.is_some() || input.attrs.timestamps.is_some() {
        cx.error_at(
            bucket.span,
            format!("`{BUCKET}` does not keep `version` or `timestamps` (its pushes do not stamp the bucket): remove them"),
        );
    }
}
