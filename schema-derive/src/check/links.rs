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

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::check::testing::{assert_one, messages};

    #[test]
    fn a_reference_holds_one_id() {
        let rule = super::reference_holds_one_id;
        let array = parse_quote! {
            struct Post {
                #[reference(index, to = User)]
                author_ids: Vec<ObjectId>,
            }
        };
        assert_one(
            &messages(Derive::Document, &array, rule),
            "`#[reference]` holds one id; for an array of ids use `#[many_to_many(...)]`",
        );
        let one = parse_quote! {
            struct Post {
                #[reference(index, to = User)]
                author_id: Option<ObjectId>,
            }
        };
        assert!(messages(Derive::Document, &one, rule).is_empty());
    }

    #[test]
    fn many_to_many_is_on_an_array() {
        let rule = super::many_to_many_is_on_an_array;
        let scalar = parse_quote! {
            struct Student {
                #[many_to_many(one_sided, to = Course)]
                course: String,
            }
        };
        assert_one(
            &messages(Derive::Document, &scalar, rule),
            "`#[many_to_many]` needs an array of ids such as `Vec<ObjectId>`; `course` is a `String`",
        );
        let map = parse_quote! {
            struct Student {
                #[many_to_many(one_sided, to = Course)]
                courses: HashMap<String, ObjectId>,
            }
        };
        assert_one(
            &messages(Derive::Document, &map, rule),
            "`courses` is a map",
        );
        let array = parse_quote! {
            struct Student {
                #[many_to_many(one_sided, to = Course)]
                course_ids: Vec<ObjectId>,
            }
        };
        assert!(messages(Derive::Document, &array, rule).is_empty());
    }

    #[test]
    fn many_to_many_is_never_null() {
        let rule = super::many_to_many_is_never_null;
        let optional = parse_quote! {
            struct Student {
                #[many_to_many(one_sided, to = Course)]
                course_ids: Option<Vec<ObjectId>>,
            }
        };
        assert_one(
            &messages(Derive::Document, &optional, rule),
            "`#[many_to_many]` id arrays are never null: write `course_ids` as `Vec<Id>`",
        );
        let array = parse_quote! {
            struct Student {
                #[many_to_many(one_sided, to = Course)]
                course_ids: Vec<ObjectId>,
            }
        };
        assert!(messages(Derive::Document, &array, rule).is_empty());
    }

    #[test]
    fn links_are_on_documents() {
        let rule = super::links_are_on_documents;
        let input = parse_quote! {
            struct Line {
                #[reference(index)]
                product_id: ObjectId,
                #[many_to_many(one_sided, to = Tag)]
                tag_ids: Vec<ObjectId>,
            }
        };
        let found = messages(Derive::Embedded, &input, rule);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].starts_with(
            "`#[reference]` is only supported on `#[derive(Document)]` fields: its index lives on a collection, and a sub-document has none. Instead, keep `product_id` as a plain field (no attribute)"
        ));
        assert!(found[1]
            .starts_with("`#[many_to_many]` is only supported on `#[derive(Document)]` fields"));
        assert!(found[1].contains("keep `tag_ids` as a bounded id array"));
        assert!(messages(Derive::Document, &input, rule).is_empty());
        let also_a_document = parse_quote! {
            #[document(collection = "lines")]
            struct Line {
                #[reference(index)]
                product_id: ObjectId,
            }
        };
        assert!(messages(Derive::Embedded, &also_a_document, rule).is_empty());
    }

    #[test]
    fn a_reference_sort_names_another_field() {
        let rule = super::reference_sort_is_a_field;
        let missing = parse_quote! {
            struct Comment {
                #[reference(index, sort(at = desc))]
                post_id: ObjectId,
                posted: DateTime,
            }
        };
        assert_one(
            &messages(Derive::Document, &missing, rule),
            "no field `at` on `Comment`",
        );
        let itself = parse_quote! {
            struct Comment {
                #[reference(index, sort(post_id = desc))]
                post_id: ObjectId,
            }
        };
        assert_one(
            &messages(Derive::Document, &itself, rule),
            "`sort` must name another field: the reference is already the first key",
        );
        let other = parse_quote! {
            struct Comment {
                #[reference(index, sort(at = desc))]
                post_id: ObjectId,
                at: DateTime,
            }
        };
        assert!(messages(Derive::Document, &other, rule).is_empty());
    }
}
