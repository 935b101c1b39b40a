//! The rules of a field's storage attribute (`#[embed]`, `#[reference]`,
//! `#[many_to_many]`): one per field, on a field serde writes.

use super::report::report;
use crate::ast::Input;
use crate::attr::{FieldKind, EMBED, MANY_TO_MANY, REFERENCE};
use crate::ctxt::Ctxt;

/// A field is stored one way: embedded (`#[embed]`), as a reference
/// (`#[reference]`) or as an id array (`#[many_to_many]`). Each storage
/// attribute after the first is reported on itself, as a duplicate when it
/// repeats the first one's name and as a conflict otherwise. The first one
/// is kept, and the checks of its kind skip the field (see
/// [`checked_fields`](super::report::checked_fields)) so that the conflict
/// is reported alone.
pub(super) fn field_is_stored_one_way(cx: &Ctxt, input: &Input) {
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

/// An attribute on a field serde never writes would describe nothing.
pub(super) fn attributes_are_on_stored_fields(cx: &Ctxt, input: &Input) {
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

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use crate::ast::Derive;
    use crate::check::testing::{assert_one, messages};

    #[test]
    fn a_field_is_stored_one_way() {
        let rule = super::field_is_stored_one_way;
        let conflict = parse_quote! {
            struct Post {
                #[embed(max = 3)]
                #[reference(index)]
                ids: Vec<ObjectId>,
            }
        };
        assert_one(
            &messages(Derive::Document, &conflict, rule),
            "`#[reference]` conflicts with `#[embed]` on `ids`: a field is stored one way",
        );
        let duplicate = parse_quote! {
            struct Post {
                #[embed(max = 3)]
                #[embed(max = 4)]
                tags: Vec<String>,
            }
        };
        assert_one(
            &messages(Derive::Document, &duplicate, rule),
            "duplicate `#[embed]` attribute on `tags`: merge them into one",
        );
        let one = parse_quote! {
            struct Post {
                #[embed(max = 3)]
                tags: Vec<String>,
            }
        };
        assert!(messages(Derive::Document, &one, rule).is_empty());
    }

    #[test]
    fn attributes_are_on_stored_fields() {
        let rule = super::attributes_are_on_stored_fields;
        let skipped = parse_quote! {
            struct Post {
                #[serde(skip)]
                #[embed(max = 3)]
                tags: Vec<String>,
            }
        };
        assert_one(
            &messages(Derive::Document, &skipped, rule),
            "`#[embed]` on `tags`, which serde skips: it is never stored; remove one of them",
        );
        let stored = parse_quote! {
            struct Post {
                #[serde(skip_serializing_if = "Vec::is_empty")]
                #[embed(max = 3)]
                tags: Vec<String>,
            }
        };
        assert!(messages(Derive::Document, &stored, rule).is_empty());
    }
}
