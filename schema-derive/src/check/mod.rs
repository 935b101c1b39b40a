//! Rules that look at more than one attribute or field at a time. One
//! function per rule; each reports to the [`Ctxt`] and goes on, so that every
//! broken rule shows up in the same build.

use std::collections::HashMap;

use syn::ext::IdentExt;

use crate::ast::{key_text, Data, Derive, Field, Input, Origin};
use crate::attr::{FieldKind, KeyName, EMBED, MANY_TO_MANY, REFERENCE, TIMESTAMPS, VERSION};
use crate::ctxt::Ctxt;
use crate::size::{self, Keys};
use crate::stamp;
use crate::suggest;
use crate::ty::{self, Growable};

mod bucket;
mod copy;
mod index_kinds;
mod on_delete;
mod shard;
mod timeseries;
mod versions;

pub fn check(cx: &Ctxt, input: &Input) {
    indexes_are_on_documents(cx, input);
    field_is_stored_one_way(cx, input);
    document_is_a_struct_with_named_fields(cx, input);
    document_has_a_collection(cx, input);
    document_has_an_id(cx, input);
    id_is_one_value(cx, input);
    ids_are_stored_as_their_type(cx, input);
    document_is_not_generic(cx, input);
    flatten_is_not_supported(cx, input);
    document_is_not_transparent(cx, input);
    stored_form_is_the_type(cx, input);
    arrays_and_maps_are_bounded(cx, input);
    types_are_not_recursive(cx, input);
    embed_is_on_an_array_or_map(cx, input);
    embed_max_is_stored_as_is(cx, input);
    many_to_many_is_on_an_array(cx, input);
    many_to_many_is_never_null(cx, input);
    reference_holds_one_id(cx, input);
    max_fits_in_a_document(cx, input);
    links_are_on_documents(cx, input);
    attributes_are_on_stored_fields(cx, input);
    reference_sort_is_a_field(cx, input);
    index_keys_are_fields(cx, input);
    ttl_index_has_one_key(cx, input);
    indexes_are_distinct(cx, input);
    id_is_not_indexed_again(cx, input);
    stored_names_are_distinct(cx, input);
    stored_names_are_plain_keys(cx, input);
    open_has_an_object(cx, input);
    stamps_are_on_documents(cx, input);
    stamp_fields_are_declared(cx, input);
    bucket::check(cx, input);
    timeseries::check(cx, input);
    index_kinds::check(cx, input);
    shard::check(cx, input);
    on_delete::check(cx, input);
    copy::check(cx, input);
    versions::check(cx, input);
}

/// Reports `msg` at `span` about `field`, and marks the field so that the
/// generated trait-bound assertions do not report the same mistake again.
fn report<M: std::fmt::Display>(cx: &Ctxt, field: &Field, span: proc_macro2::Span, msg: M) {
    field.flag();
    cx.error_at(span, msg);
}

/// Fields whose attributes did not conflict: a conflict is reported alone.
fn checked_fields<'a, 'b>(input: &'b Input<'a>) -> impl Iterator<Item = &'b Field<'a>> {
    input.all_fields().into_iter().filter(|f| !f.conflicted)
}

/// An index belongs to a root document: a sub-document is stored inside its
/// parent's collection. On `#[derive(Embedded)]`, `collection` says the type
/// is also a root document (`#[derive(Document, Embedded)]`), whose derive
/// creates the indexes; without it, the first `index` is reported.
fn indexes_are_on_documents(cx: &Ctxt, input: &Input) {
    if input.derive != Derive::Embedded || input.attrs.collection.is_some() {
        return;
    }
    if let Some(index) = input.attrs.indexes.first() {
        cx.error_at(
            index.span,
            "`index` belongs to a root document: a sub-document is stored inside its parent's collection (add `#[derive(Document)]` and `collection = \"...\"`, or declare the index on the parent)",
        );
    }
}

/// A field is stored one way: embedded (`#[embed]`), as a reference
/// (`#[reference]`) or as an id array (`#[many_to_many]`). Each storage
/// attribute after the first is reported on itself, as a duplicate when it
/// repeats the first one's name and as a conflict otherwise. The first one
/// is kept, and the checks of its kind skip the field (see
/// [`checked_fields`]) so that the conflict is reported alone.
fn field_is_stored_one_way(cx: &Ctxt, input: &Input) {
    for field in input.all_fields() {
        let Some((first, rest)) = field.storage_attrs.split_first() else {
            continue;
        };
        for second in rest {
            let msg = if second.name == first.name {
                format!(
                    "duplicate `#[{}]` attribute on `{}`: merge them into one",
                    second.name, field.label
                )
            } else {
                format!(
                    "`#[{}]` conflicts with `#[{}]` on `{}`: a field is stored one way, {}",
                    second.name,
                    first.name,
                    field.label,
                    "embedded (`#[embed]`), as a reference (`#[reference]`) or as an id array (`#[many_to_many]`)"
                )
            };
            cx.error_spanned_by(second.attr, msg);
        }
    }
}

/// A root document is stored as one BSON object whose keys are its fields:
/// an enum, a tuple struct or a unit struct has no such shape.
fn document_is_a_struct_with_named_fields(cx: &Ctxt, input: &Input) {
    let what = match (&input.original.data, &input.data) {
        (syn::Data::Union(_), _) => {
            cx.error_spanned_by(
                input.ident,
                format!(
                    "`#[derive({})]` does not support unions",
                    input.derive.name()
                ),
            );
            return;
        }
        _ if input.derive == Derive::Embedded => return,
        (_, Data::Struct(_)) => return,
        (_, Data::Enum(_)) => "an enum",
        (_, Data::Tuple(_)) => "a tuple struct",
        (_, Data::Unit) => "a unit struct",
    };
    cx.error_spanned_by(
        input.ident,
        format!(
            "`#[derive(Document)]` needs a struct with named fields, not {what}: a root document is stored as one object with named keys (use `#[derive(Embedded)]` to store {what} inside a document)"
        ),
    );
}

/// Every root document names its collection.
fn document_has_a_collection(cx: &Ctxt, input: &Input) {
    if input.derive == Derive::Document
        && input.attrs.collection.is_none()
        && !input.attrs.unknown_keys
    {
        cx.error_spanned_by(
            input.ident,
            "`#[derive(Document)]` needs `#[document(collection = \"...\")]`: the collection the model is stored in",
        );
    }
}

/// Every stored document has an `_id`; the model must say which field holds it.
/// Not reported when a serde attribute has a typo (reported by serde or the
/// compiler): the `rename = "_id"` may be in it.
fn document_has_an_id(cx: &Ctxt, input: &Input) {
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
fn id_is_one_value(cx: &Ctxt, input: &Input) {
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
fn ids_are_stored_as_their_type(cx: &Ctxt, input: &Input) {
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
fn id_refusal(ty: &syn::Type) -> Option<String> {
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
enum NotOneValue {
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
fn not_one_value(ty: &syn::Type) -> Option<NotOneValue> {
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

/// A type as written, for messages: `Option<ObjectId>`, `(String, String)`.
fn written(ty: &syn::Type) -> String {
    let mut text = quote::quote!(#ty).to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" ;", ";"),
        ("& ", "&"),
    ] {
        text = text.replace(from, to);
    }
    text
}

/// A collection holds one concrete type.
fn document_is_not_generic(cx: &Ctxt, input: &Input) {
    let generics = &input.original.generics;
    if input.derive == Derive::Document && !generics.params.is_empty() {
        cx.error_spanned_by(
            generics,
            "`#[derive(Document)]` does not support generic parameters: a collection stores one concrete type",
        );
    }
}

/// A flattened field's keys are not known to the derive, so neither its
/// stored names nor its bound could be checked.
fn flatten_is_not_supported(cx: &Ctxt, input: &Input) {
    for field in input.all_fields() {
        if let Some(span) = field.serde.flatten {
            report(
                cx,
                field,
                span,
                format!(
                    "`#[serde(flatten)]` is not supported by `#[derive({})]`: list the fields here, or keep them in a sub-document field whose type derives `Embedded`",
                    input.derive.name()
                ),
            );
        }
    }
}

/// A transparent struct is stored as its one field, not as a document.
fn document_is_not_transparent(cx: &Ctxt, input: &Input) {
    if let (Derive::Document, Some(span)) = (input.derive, input.serde.transparent) {
        cx.error_at(
            span,
            "`#[serde(transparent)]` is not supported by `#[derive(Document)]`: a root document is stored as an object",
        );
    }
}

/// `#[serde(into = "T")]` stores a `T` made from the value: the fields the
/// derive checks and describes are not what is stored, so the validator would
/// refuse every write and the bound rule would check the wrong type.
fn stored_form_is_the_type(cx: &Ctxt, input: &Input) {
    let Some(span) = input.serde.into else {
        return;
    };
    let ident = input.ident.unraw();
    let instead = match input.derive {
        Derive::Document => "a root document is stored as its own fields: remove `into`".to_owned(),
        Derive::Embedded => "give the field that holds it the other type itself (deriving `Embedded` if it is a struct or enum), converting where it is read and written".to_owned(),
    };
    cx.error_at(
        span,
        format!(
            "`#[serde(into = ...)]` is not supported by `#[derive({})]`: serde stores the other type, not the fields of `{ident}` that the derive checks and describes in the validator; {instead}",
            input.derive.name(),
        ),
    );
}

/// The rule: an array or map with no `#[embed(max = N)]` may grow until the
/// document hits 16 MiB. Obvious cases are named here; the trait bound in the
/// generated code catches the rest (aliases, nested sub-documents).
fn arrays_and_maps_are_bounded(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        // A known encoding of one value (`serde_bytes`) stores one value.
        if !field.is_stored()
            || !matches!(field.kind, FieldKind::Plain)
            || field.serde.single_value_encoding
        {
            continue;
        }
        // An array `_id` is refused by `id_is_one_value`, with its own reason.
        let is_id = input.derive == Derive::Document && field.stored == "_id";
        if is_id && id_refusal(field.ty).is_some() {
            continue;
        }
        if let Some(advice) = ty::unbounded_advice(field.ty, &field.label) {
            field.flag();
            cx.error_spanned_by(field.ty, format!("{advice}{}", misspelt_hint(field)));
        }
    }
}

/// A type that holds itself has no bounded depth; the direct case is named
/// here, the `Nesting` walk in the generated code catches the rest (two
/// sub-documents that hold each other). A field a custom serializer stores
/// is left to the serializer.
fn types_are_not_recursive(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        if field.is_stored()
            && !field.serde.custom_serializer
            && ty::holds_itself(field.ty, input.ident)
        {
            field.flag();
            cx.error_spanned_by(
                field.ty,
                format!(
                    "recursive type: `{}` holds `{}` itself, so nothing bounds the depth of the stored document; store the recursive part in its own collection and point at the parent with `#[reference(index)]`, or unroll it into a fixed number of levels",
                    field.label, input.ident
                ),
            );
        }
    }
}

/// ` (is `#[embd]` meant to be `#[embed]`?)` when one of the field's
/// attributes misspells one of the derive's: the compiler reports the
/// attribute as unknown, and this error says why the field is unbounded.
fn misspelt_hint(field: &Field) -> String {
    field
        .original
        .attrs
        .iter()
        .find_map(|attr| {
            let meant = crate::attr::misspelt(attr).filter(|m| *m != "serde")?;
            let found = attr.path().get_ident()?;
            Some(format!(" (is `#[{found}]` meant to be `#[{meant}]`?)"))
        })
        .unwrap_or_default()
}

/// `#[embed(max = N)]` bounds an array or map; on a single value it means nothing.
fn embed_is_on_an_array_or_map(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        if let FieldKind::Embed(embed) = &field.kind {
            if embed.unbounded.is_some() {
                continue;
            }
            let label = &field.label;
            if let Some(free) = ty::free_form_name(field.ty) {
                report(
                    cx,
                    field,
                    embed.span,
                    format!(
                        "`#[embed]` bounds an array or map; `{label}` is a `{free}`, a free-form value whose \
                         keys the model does not know: describe it with a `#[derive(Embedded)]` struct, bound it \
                         as a map (`#[embed(max = N)] {label}: HashMap<String, Bson>`, stored with \
                         `maxProperties`), or keep it free-form with `#[embed(unbounded = \"reason\")]`"
                    ),
                );
            } else if let Some(scalar) = ty::scalar_name(field.ty) {
                report(
                    cx,
                    field,
                    embed.span,
                    format!("`#[embed]` needs an array or map field; `{label}` is a `{scalar}`"),
                );
            }
        }
    }
}

/// `#[embed(max = N)]` is enforced by the validator (`maxItems`) and by the
/// push helpers, both of which see the field as its Rust type stores it; a
/// custom serializer stores another form, so neither would hold: the
/// validator has no schema for it and a push would add an item in a form the
/// serializer never writes.
fn embed_max_is_stored_as_is(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        if let FieldKind::Embed(embed) = &field.kind {
            if embed.max.is_none() || !field.serde.custom_serializer {
                continue;
            }
            report(
                cx,
                field,
                embed.span,
                format!(
                    "`#[embed(max = N)]` on `{}`, which has `#[serde(with)]`/`serialize_with`: the server could not enforce the bound (the validator cannot describe what the serializer stores) and `push` would add items in a form the serializer never writes; remove the custom serializer (a `#[derive(Embedded)]` item type describes its own form), or keep the field with `#[embed(unbounded = \"reason\")]`",
                    field.label
                ),
            );
        }
    }
}

/// A many-to-many link is an array of ids.
fn many_to_many_is_on_an_array(cx: &Ctxt, input: &Input) {
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
fn many_to_many_is_never_null(cx: &Ctxt, input: &Input) {
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

/// A reference is one id held by the child; an array of ids is a
/// many-to-many link with its own bound.
fn reference_holds_one_id(cx: &Ctxt, input: &Input) {
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

/// References and many-to-many links create indexes and relations on a
/// collection, so they belong to root documents. The message says what to
/// write instead: the id as a plain field (or a bounded id array), indexed
/// from the root document by its dotted path.
fn links_are_on_documents(cx: &Ctxt, input: &Input) {
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

/// An attribute on a field serde never writes would describe nothing.
fn attributes_are_on_stored_fields(cx: &Ctxt, input: &Input) {
    for field in input.all_fields() {
        if field.is_stored() {
            continue;
        }
        let (name, span) = match &field.kind {
            FieldKind::Plain => continue,
            FieldKind::Embed(e) => (EMBED, e.span),
            FieldKind::Reference(r) => (REFERENCE, r.span),
            FieldKind::ManyToMany(l) => (MANY_TO_MANY, l.span),
        };
        report(
            cx,
            field,
            span,
            format!(
                "`#[{name}]` on `{}`, which serde skips: it is never stored; remove one of them",
                field.label
            ),
        );
    }
}

/// A `max` that no data can reach: even items that encode to nothing but their
/// element header (see [`crate::size`]) would exceed the 16 MiB a document may
/// hold. The derive sees only the field's tokens, so an array type it does
/// not recognize gets the map bound, the lower of the two.
fn max_fits_in_a_document(cx: &Ctxt, input: &Input) {
    for field in checked_fields(input) {
        let (attr, max, span, keys) = match &field.kind {
            FieldKind::Embed(embed) => {
                let keys = match ty::growable(field.ty) {
                    Some(Growable::Array) => Keys::Indexes,
                    _ => Keys::Strings,
                };
                (EMBED, embed.max, embed.max_span, keys)
            }
            // An id array is an array whatever its Rust type.
            FieldKind::ManyToMany(link) => (MANY_TO_MANY, link.max, link.max_span, Keys::Indexes),
            _ => continue,
        };
        let (Some(max), Some(span)) = (max, span) else {
            continue;
        };
        let least = keys.min_bytes(u64::from(max));
        if least <= size::MAX_DOCUMENT_SIZE {
            continue;
        }
        let what = match keys {
            Keys::Indexes => "array items",
            Keys::Strings => "map entries",
        };
        report(
            cx,
            field,
            span,
            format!(
                "`#[{attr}(max = {max})]` on `{}` can never be reached: {} {what} take at least {} bytes, more than the {} bytes (16 MiB) a whole document may hold; each item takes at least {}. At most {} items fit even then: choose a smaller `max`, or store the items in their own collection with `#[reference(index)]`",
                field.label,
                size::grouped(u64::from(max)),
                size::grouped(least),
                size::grouped(size::MAX_DOCUMENT_SIZE),
                keys.per_item(),
                size::grouped(keys.most_that_fit()),
            ),
        );
    }
}

/// Reports a key that names no stored field of the struct; `true` when it does.
fn check_field_key(cx: &Ctxt, input: &Input, key: &KeyName) -> bool {
    check_field_key_as(cx, input, key, "indexed")
}

/// [`check_field_key`], saying what a skipped field cannot be (`indexed`,
/// `a shard key`).
fn check_field_key_as(cx: &Ctxt, input: &Input, key: &KeyName, role: &str) -> bool {
    let ident = match key {
        KeyName::Field(ident) => ident,
        // The first segment is this struct's; the compiler checks the rest.
        KeyName::Nested(nested) => &nested.path[0],
        KeyName::Path(_) => return true,
    };
    let name = ident.unraw().to_string();
    match input.field_named(&name) {
        Some(field) if field.is_stored() => true,
        Some(_) => {
            cx.error_spanned_by(
                ident,
                format!("`{name}` is not stored (serde skips it), so it cannot be {role}"),
            );
            false
        }
        None => {
            let names: Vec<(&str, &str)> = input
                .struct_fields()
                .iter()
                .filter(|f| f.is_stored())
                .map(|f| (f.name.as_str(), f.stored.as_str()))
                .collect();
            let hint = suggest::field_hint(&name, &names);
            cx.error_spanned_by(
                ident,
                format!("no field `{name}` on `{}`{hint}", input.ident),
            );
            false
        }
    }
}

/// `sort(at = desc)` names another field of the same struct.
fn reference_sort_is_a_field(cx: &Ctxt, input: &Input) {
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

/// Index keys and partial filter keys name fields that exist and are stored.
fn index_keys_are_fields(cx: &Ctxt, input: &Input) {
    for index in &input.attrs.indexes {
        let mut seen = HashMap::new();
        for key in &index.keys {
            if check_field_key(cx, input, &key.name) {
                let stored = input.stored_key(&key.name);
                if seen.insert(stored.clone(), ()).is_some() {
                    cx.error_at(
                        key.name.span(),
                        format!("`{stored}` appears twice in this index"),
                    );
                }
            }
        }
        for cond in &index.partial {
            check_field_key(cx, input, &cond.key);
        }
    }
}

/// The server expires documents by one date field: a TTL index has one key.
fn ttl_index_has_one_key(cx: &Ctxt, input: &Input) {
    for index in &input.attrs.indexes {
        if let Some((_, span)) = index.expire_after {
            if index.keys.len() > 1 {
                cx.error_at(
                    span,
                    format!(
                        "`expire_after` needs exactly one key: a TTL index cannot be compound (this one has {})",
                        index.keys.len()
                    ),
                );
            }
        }
    }
}

/// Two indexes on the same keys (or with the same name) cannot both exist on
/// the server; the second is reported, naming the first.
fn indexes_are_distinct(cx: &Ctxt, input: &Input) {
    let indexes = input.indexes();
    // A reference's index also stands for its keys without the `_id`
    // tie-break: it serves every query an index on those would.
    let mut by_keys: HashMap<String, (&Origin, Option<String>)> = HashMap::new();
    let mut by_name: HashMap<&str, &Origin> = HashMap::new();
    for index in &indexes {
        let keys = key_text(&index.keys);
        let declared = key_text(index.declared_keys());
        if let Some((first, whole)) = by_keys.get(&keys).or_else(|| by_keys.get(&declared)) {
            let whole = whole
                .as_ref()
                .map(|whole| format!(" (its index is {whole}, `_id` last to order ties)"))
                .unwrap_or_default();
            cx.error_at(
                index.span,
                format!(
                    "two indexes on the same keys {declared}: {} here and {}{whole} before it; keep one (options such as `unique` go on the one you keep)",
                    index.origin.describe(),
                    first.describe()
                ),
            );
            continue;
        }
        if index.tie_break {
            by_keys.insert(declared, (&index.origin, Some(keys.clone())));
        }
        by_keys.insert(keys, (&index.origin, None));
        if let Some(first) = by_name.get(index.name.as_str()) {
            cx.error_at(
                index.name_span.unwrap_or(index.span),
                format!(
                    "two indexes named `{}`: {} here and {} before it; give one another `name`",
                    index.name,
                    index.origin.describe(),
                    first.describe()
                ),
            );
            continue;
        }
        by_name.insert(&index.name, &index.origin);
    }
}

/// The server always keeps a unique index on `_id`.
fn id_is_not_indexed_again(cx: &Ctxt, input: &Input) {
    if input.derive != Derive::Document {
        return;
    }
    for index in input.indexes() {
        if index.keys.len() == 1 && index.keys[0].0 == "_id" && index.partial.is_empty() {
            cx.error_at(
                index.span,
                "the server already indexes `_id` (unique); remove this index",
            );
        }
    }
}

/// Two fields stored under one name would write the same key twice.
fn stored_names_are_distinct(cx: &Ctxt, input: &Input) {
    let mut seen: HashMap<&str, &Field> = HashMap::new();
    for field in input.struct_fields().iter().filter(|f| f.is_stored()) {
        if let Some(first) = seen.get(field.stored.as_str()) {
            cx.error_at(
                field.span(),
                format!(
                    "`{}` and `{}` are both stored as `{}`",
                    first.name, field.name, field.stored
                ),
            );
        } else {
            seen.insert(&field.stored, field);
        }
    }
}

/// Every key serde writes (a named field, a `tag` or `content` key, the name
/// of an externally tagged variant that carries data) is one plain key: the
/// server reads a `.` in a path as a step into a sub-document and a leading
/// `$` as an operator, so a push, a filter or an index on such a key would
/// address another field (or be refused), and a NUL byte cannot be encoded.
fn stored_names_are_plain_keys(cx: &Ctxt, input: &Input) {
    for field in input.all_fields() {
        if field.original.ident.is_none() || !field.is_stored() {
            continue;
        }
        if let Some(why) = not_a_plain_key(&field.stored) {
            report(
                cx,
                field,
                field.span(),
                format!(
                    "field `{}` is stored as the key \"{}\": {why}; rename it",
                    field.label,
                    field.stored.escape_debug()
                ),
            );
        }
    }
    for (key, what) in [(&input.serde.tag, "tag"), (&input.serde.content, "content")] {
        if let Some(why) = key.as_deref().and_then(not_a_plain_key) {
            let key = key.as_deref().unwrap_or_default();
            cx.error_spanned_by(
                input.ident,
                format!(
                    "`#[serde({what} = \"{}\")]` is stored as a key: {why}; choose another name",
                    key.escape_debug()
                ),
            );
        }
    }
    if let (Data::Enum(variants), None, false) =
        (&input.data, &input.serde.tag, input.serde.untagged)
    {
        for variant in variants {
            if variant.skip || variant.untagged || variant.style == crate::ast::Style::Unit {
                continue;
            }
            if let Some(why) = not_a_plain_key(&variant.stored) {
                cx.error_spanned_by(
                    variant.ident,
                    format!(
                        "variant `{}` is stored as the key \"{}\": {why}; rename it",
                        variant.ident.unraw(),
                        variant.stored.escape_debug()
                    ),
                );
            }
        }
    }
}

/// Why `key` cannot be one stored key, or `None` when it can.
fn not_a_plain_key(key: &str) -> Option<&'static str> {
    if key.is_empty() {
        Some("an empty key cannot be named in a field path, so no push, filter or index can reach it")
    } else if key.contains('.') {
        Some("the server reads a `.` in a field path as a step into a sub-document, so a push, a filter or an index on it would address another field")
    } else if key.starts_with('$') {
        Some("the server reads a key starting with `$` as an operator in updates and queries")
    } else if key.contains('\0') {
        Some("BSON ends a key at a NUL character, so it cannot be stored")
    } else {
        None
    }
}

/// `#[document(open)]` opens the type's own object in the validator; a type
/// stored as something else has none, so the key would do nothing.
fn open_has_an_object(cx: &Ctxt, input: &Input) {
    let Some(span) = input.attrs.open else {
        return;
    };
    let stored_as = match &input.data {
        Data::Struct(fields) => match input.serde.transparent {
            Some(_) if fields.iter().filter(|f| f.is_stored()).count() == 1 => {
                "a transparent struct is stored as its field"
            }
            _ => return,
        },
        Data::Tuple(fields) if fields.len() == 1 => "a newtype is stored as its field",
        Data::Tuple(_) => "a tuple struct is stored as an array",
        Data::Unit => "a unit struct is stored as null",
        Data::Enum(variants) => {
            let objects = input.serde.tag.is_some()
                || variants.iter().any(|v| {
                    !v.skip
                        && (v.custom_serializer
                            || if input.serde.untagged || v.untagged {
                                v.style == crate::ast::Style::Struct
                            } else {
                                v.style != crate::ast::Style::Unit
                            })
                });
            if objects {
                return;
            }
            "its variants are stored as names or as their content, never as an object"
        }
    };
    cx.error_at(
        span,
        format!(
            "`open` does nothing on `{}`: {stored_as}; `open` applies to a type stored as an object (a struct with named fields, or an enum with a tag or data-carrying variants)",
            input.ident.unraw()
        ),
    );
}

/// `version` and `timestamps` keep fields of a root document, which the
/// helpers write; a sub-document has no helper of its own.
fn stamps_are_on_documents(cx: &Ctxt, input: &Input) {
    if input.derive != Derive::Embedded || input.attrs.collection.is_some() {
        return;
    }
    let version = input
        .attrs
        .version
        .as_ref()
        .map(|(_, span)| (*span, VERSION));
    let timestamps = input.attrs.timestamps.map(|span| (span, TIMESTAMPS));
    for (span, key) in version.into_iter().chain(timestamps) {
        cx.error_at(
            span,
            format!(
                "`{key}` belongs to a root document (`#[derive(Document)]`): the helpers that keep it write whole documents, not sub-documents"
            ),
        );
    }
}

/// The fields `version` and `timestamps` keep must be declared by the model
/// (so reads see them, and renames apply), stored (not `#[serde(skip)]`),
/// not the `_id`, and distinct. Their types are checked by the generated
/// code (`VersionField`, `TimestampField`), so an alias is judged by what it
/// names.
fn stamp_fields_are_declared(cx: &Ctxt, input: &Input) {
    if input.derive != Derive::Document {
        return;
    }
    let ident = input.ident.unraw();
    let mut named: Vec<(&str, proc_macro2::Span, String)> = Vec::new();
    if let Some((name, span)) = &input.attrs.version {
        named.push((
            name.as_str(),
            *span,
            format!(
                "`#[document(version)]` keeps the version in the field `{name}`, which `{ident}` does not declare: add `{name}: i64` (or name an integer field: `version = \"rev\"`)"
            ),
        ));
    }
    if let Some(span) = input.attrs.timestamps {
        for name in [stamp::CREATED_AT, stamp::UPDATED_AT] {
            named.push((
                name,
                span,
                format!(
                    "`#[document(timestamps)]` keeps the times in `created_at` and `updated_at`, and `{ident}` does not declare `{name}`: add `{name}: bson::DateTime` (serde renames apply to the stored name)"
                ),
            ));
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for (name, span, missing) in named {
        let Some(field) = input.field_named(name) else {
            cx.error_at(span, missing);
            continue;
        };
        if !field.is_stored() {
            cx.error_at(
                span,
                format!("the field `{name}` is skipped by serde, so it cannot keep `{}`: remove the `skip`", stamp::key_of(name)),
            );
        } else if field.stored == "_id" {
            cx.error_at(
                span,
                format!("the field `{name}` is the `_id`; name another field"),
            );
        } else if seen.contains(&name) {
            cx.error_at(
                span,
                format!("the field `{name}` cannot keep both the version and a timestamp"),
            );
        }
        seen.push(name);
    }
}
