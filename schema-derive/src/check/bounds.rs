//! The bound rule: every array or map is bounded (`#[embed(max = N)]`),
//! `#[embed]` is on an array or map stored as its Rust type, a `max` can be
//! reached inside 16 MiB, and a type does not hold itself. What the derive
//! cannot see (aliases, nested types) is left to the generated assertions.

use super::id::id_refusal;
use super::report::{checked_fields, report};
use crate::ast::{Derive, Field, Input};
use crate::attr::{FieldKind, EMBED, MANY_TO_MANY};
use crate::ctxt::Ctxt;
use crate::size::{self, Keys};
use crate::ty::{self, Growable};

/// The rule: an array or map with no `#[embed(max = N)]` may grow until the
/// document hits 16 MiB. Obvious cases are named here; the trait bound in the
/// generated code catches the rest (aliases, nested sub-documents).
pub(super) fn arrays_and_maps_are_bounded(cx: &Ctxt, input: &Input) {
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

/// A type that holds itself has no bounded depth; the direct case is named
/// here, the `Nesting` walk in the generated code catches the rest (two
/// sub-documents that hold each other). A field a custom serializer stores
/// is left to the serializer.
pub(super) fn types_are_not_recursive(cx: &Ctxt, input: &Input) {
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

/// `#[embed(max = N)]` bounds an array or map; on a single value it means nothing.
pub(super) fn embed_is_on_an_array_or_map(cx: &Ctxt, input: &Input) {
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
pub(super) fn embed_max_is_stored_as_is(cx: &Ctxt, input: &Input) {
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

/// A `max` that no data can reach: even items that encode to nothing but their
/// element header (see [`crate::size`]) would exceed the 16 MiB a document may
/// hold. The derive sees only the field's tokens, so an array type it does
/// not recognize gets the map bound, the lower of the two.
pub(super) fn max_fits_in_a_document(cx: &Ctxt, input: &Input) {
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

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::check::testing::{assert_one, messages, run};

    #[test]
    fn arrays_and_maps_are_bounded() {
        let rule = super::arrays_and_maps_are_bounded;
        let input = parse_quote! {
            struct Post {
                tags: Vec<String>,
                counts: Option<HashMap<String, i64>>,
                #[embed(max = 10)]
                bounded: Vec<String>,
                #[serde(with = "serde_bytes")]
                bytes: Vec<u8>,
                #[serde(skip)]
                cache: Vec<String>,
            }
        };
        let (model, found) = run(Derive::Document, &input, rule);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].starts_with("unbounded array `tags`: add `#[embed(max = N)]`"));
        assert!(found[1].starts_with("unbounded map `counts`: add `#[embed(max = N)]`"));
        let flagged: Vec<_> = model.all_fields().iter().map(|f| f.is_flagged()).collect();
        assert_eq!(flagged, [true, true, false, false, false]);
    }

    #[test]
    fn an_unbounded_field_names_a_misspelt_attribute() {
        let input = parse_quote! {
            struct Post {
                #[embd(max = 10)]
                tags: Vec<String>,
            }
        };
        assert_one(
            &messages(Derive::Document, &input, super::arrays_and_maps_are_bounded),
            "(is `#[embd]` meant to be `#[embed]`?)",
        );
    }

    #[test]
    fn an_array_id_is_left_to_the_id_rule() {
        let input = parse_quote! {
            struct Post {
                #[serde(rename = "_id")]
                id: Vec<String>,
            }
        };
        let rule = super::arrays_and_maps_are_bounded;
        assert!(messages(Derive::Document, &input, rule).is_empty());
        assert_one(
            &messages(Derive::Embedded, &input, rule),
            "unbounded array `id`",
        );
    }

    #[test]
    fn types_are_not_recursive() {
        let rule = super::types_are_not_recursive;
        let input = parse_quote! {
            struct Node {
                children: Option<Box<Node>>,
                #[serde(with = "flat")]
                flat: Option<Box<Node>>,
                other: Option<Box<Leaf>>,
            }
        };
        assert_one(
            &messages(Derive::Embedded, &input, rule),
            "recursive type: `children` holds `Node` itself",
        );
    }

    #[test]
    fn embed_is_on_an_array_or_map() {
        let rule = super::embed_is_on_an_array_or_map;
        let scalar = parse_quote! {
            struct Post {
                #[embed(max = 3)]
                n: i32,
            }
        };
        assert_one(
            &messages(Derive::Document, &scalar, rule),
            "`#[embed]` needs an array or map field; `n` is a `i32`",
        );
        let free = parse_quote! {
            struct Post {
                #[embed(max = 3)]
                extra: Document,
            }
        };
        assert_one(
            &messages(Derive::Document, &free, rule),
            "`#[embed]` bounds an array or map; `extra` is a `bson::Document`, a free-form value",
        );
        let fine = parse_quote! {
            struct Post {
                #[embed(max = 3)]
                tags: Vec<String>,
                #[embed(unbounded = "free-form by design")]
                extra: Document,
            }
        };
        assert!(messages(Derive::Document, &fine, rule).is_empty());
    }

    #[test]
    fn embed_max_is_stored_as_is() {
        let rule = super::embed_max_is_stored_as_is;
        let custom = parse_quote! {
            struct Post {
                #[embed(max = 3)]
                #[serde(serialize_with = "joined")]
                tags: Vec<String>,
            }
        };
        assert_one(
            &messages(Derive::Document, &custom, rule),
            "`#[embed(max = N)]` on `tags`, which has `#[serde(with)]`/`serialize_with`",
        );
        let plain = parse_quote! {
            struct Post {
                #[embed(max = 3)]
                #[serde(deserialize_with = "lenient")]
                tags: Vec<String>,
            }
        };
        assert!(messages(Derive::Document, &plain, rule).is_empty());
    }

    #[test]
    fn max_fits_in_a_document() {
        let rule = super::max_fits_in_a_document;
        let huge = parse_quote! {
            struct Post {
                #[embed(max = 100000000)]
                tags: Vec<String>,
                #[many_to_many(one_sided, to = Tag, max = 100000000)]
                tag_ids: Vec<ObjectId>,
            }
        };
        let found = messages(Derive::Document, &huge, rule);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].starts_with(
            "`#[embed(max = 100000000)]` on `tags` can never be reached: 100,000,000 array items take at least"
        ));
        assert!(found[1]
            .starts_with("`#[many_to_many(max = 100000000)]` on `tag_ids` can never be reached"));
        let reachable = parse_quote! {
            struct Post {
                #[embed(max = 1000)]
                tags: Vec<String>,
            }
        };
        assert!(messages(Derive::Document, &reachable, rule).is_empty());
    }
}
