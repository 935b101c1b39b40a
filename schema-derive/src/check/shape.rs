//! The rules of the container's shape: a root document is a non-generic
//! struct with named fields stored as its own fields (no `transparent`,
//! `into` or `flatten`) in a named collection, and `open` is on a type stored
//! as an object.

use syn::ext::IdentExt;

use super::report::report;
use crate::ast::{Data, Derive, Input};
use crate::ctxt::Ctxt;

/// A root document is stored as one BSON object whose keys are its fields:
/// an enum, a tuple struct or a unit struct has no such shape.
pub(super) fn document_is_a_struct_with_named_fields(cx: &Ctxt, input: &Input) {
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
pub(super) fn document_has_a_collection(cx: &Ctxt, input: &Input) {
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

/// A collection holds one concrete type.
pub(super) fn document_is_not_generic(cx: &Ctxt, input: &Input) {
    let generics = &input.original.generics;
    if input.derive == Derive::Document && !generics.params.is_empty() {
        cx.error_spanned_by(
            generics,
            "`#[derive(Document)]` does not support generic parameters: a collection stores one concrete type",
        );
    }
}

/// A transparent struct is stored as its one field, not as a document.
pub(super) fn document_is_not_transparent(cx: &Ctxt, input: &Input) {
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
pub(super) fn stored_form_is_the_type(cx: &Ctxt, input: &Input) {
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

/// A flattened field's keys are not known to the derive, so neither its
/// stored names nor its bound could be checked.
pub(super) fn flatten_is_not_supported(cx: &Ctxt, input: &Input) {
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

/// `#[document(open)]` opens the type's own object in the validator; a type
/// stored as something else has none, so the key would do nothing.
pub(super) fn open_has_an_object(cx: &Ctxt, input: &Input) {
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

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::check::testing::{assert_one, messages, run};

    #[test]
    fn a_document_is_a_struct_with_named_fields() {
        let rule = document_is_a_struct_with_named_fields;
        for (input, what) in [
            (
                parse_quote!(
                    enum Post {
                        A,
                        B,
                    }
                ),
                "not an enum",
            ),
            (
                parse_quote!(
                    struct Post(i32);
                ),
                "not a tuple struct",
            ),
            (
                parse_quote!(
                    struct Post;
                ),
                "not a unit struct",
            ),
        ] {
            let found = messages(Derive::Document, &input, rule);
            assert_one(
                &found,
                "`#[derive(Document)]` needs a struct with named fields",
            );
            assert_one(&found, what);
        }
        let union = parse_quote!(union Post { a: u32 });
        assert_one(
            &messages(Derive::Embedded, &union, rule),
            "`#[derive(Embedded)]` does not support unions",
        );
        let named = parse_quote!(
            struct Post {
                a: i32,
            }
        );
        assert!(messages(Derive::Document, &named, rule).is_empty());
        let embedded_enum = parse_quote!(
            enum Kind {
                A,
                B,
            }
        );
        assert!(messages(Derive::Embedded, &embedded_enum, rule).is_empty());
    }

    #[test]
    fn a_document_names_its_collection() {
        let rule = document_has_a_collection;
        let without = parse_quote!(
            struct Post {
                a: i32,
            }
        );
        assert_one(
            &messages(Derive::Document, &without, rule),
            "`#[derive(Document)]` needs `#[document(collection = \"...\")]`",
        );
        assert!(messages(Derive::Embedded, &without, rule).is_empty());
        let with = parse_quote! {
            #[document(collection = "posts")]
            struct Post { a: i32 }
        };
        assert!(messages(Derive::Document, &with, rule).is_empty());
    }

    #[test]
    fn a_document_is_not_generic() {
        let rule = document_is_not_generic;
        let generic = parse_quote!(
            struct Post<T> {
                a: T,
            }
        );
        assert_one(
            &messages(Derive::Document, &generic, rule),
            "`#[derive(Document)]` does not support generic parameters: a collection stores one concrete type",
        );
        assert!(messages(Derive::Embedded, &generic, rule).is_empty());
    }

    #[test]
    fn flatten_is_refused_and_the_field_flagged() {
        let input = parse_quote! {
            struct Post {
                a: i32,
                #[serde(flatten)]
                extra: Extra,
            }
        };
        let (model, found) = run(Derive::Embedded, &input, flatten_is_not_supported);
        assert_one(
            &found,
            "`#[serde(flatten)]` is not supported by `#[derive(Embedded)]`: list the fields here",
        );
        let flagged: Vec<_> = model.all_fields().iter().map(|f| f.is_flagged()).collect();
        assert_eq!(flagged, [false, true]);
        let plain = parse_quote!(
            struct Post {
                a: i32,
                extra: Extra,
            }
        );
        assert!(messages(Derive::Embedded, &plain, flatten_is_not_supported).is_empty());
    }

    #[test]
    fn a_document_is_not_transparent() {
        let rule = document_is_not_transparent;
        let transparent = parse_quote! {
            #[serde(transparent)]
            struct Post { a: i32 }
        };
        assert_one(
            &messages(Derive::Document, &transparent, rule),
            "`#[serde(transparent)]` is not supported by `#[derive(Document)]`",
        );
        assert!(messages(Derive::Embedded, &transparent, rule).is_empty());
    }

    #[test]
    fn serde_into_is_refused() {
        let rule = stored_form_is_the_type;
        let into = parse_quote! {
            #[serde(into = "Other")]
            struct Post { a: i32 }
        };
        let found = messages(Derive::Document, &into, rule);
        assert_one(
            &found,
            "`#[serde(into = ...)]` is not supported by `#[derive(Document)]`: serde stores the other type, not the fields of `Post`",
        );
        assert_one(&found, "remove `into`");
        assert_one(
            &messages(Derive::Embedded, &into, rule),
            "give the field that holds it the other type itself",
        );
        let plain = parse_quote!(
            struct Post {
                a: i32,
            }
        );
        assert!(messages(Derive::Document, &plain, rule).is_empty());
    }

    #[test]
    fn open_is_on_a_type_stored_as_an_object() {
        let rule = open_has_an_object;
        for (input, stored_as) in [
            (
                parse_quote!(
                    #[document(open)]
                    struct Pair(i32, i32);
                ),
                "a tuple struct is stored as an array",
            ),
            (
                parse_quote!(
                    #[document(open)]
                    struct Id(i32);
                ),
                "a newtype is stored as its field",
            ),
            (
                parse_quote!(
                    #[document(open)]
                    struct Nothing;
                ),
                "a unit struct is stored as null",
            ),
            (
                parse_quote!(
                    #[document(open)]
                    enum Kind {
                        A,
                        B,
                    }
                ),
                "its variants are stored as names or as their content, never as an object",
            ),
        ] {
            let found = messages(Derive::Embedded, &input, rule);
            assert_one(&found, "`open` does nothing on `");
            assert_one(&found, stored_as);
        }
        for input in [
            parse_quote!(
                #[document(open)]
                struct Post {
                    a: i32,
                }
            ),
            parse_quote!(
                #[document(open)]
                #[serde(tag = "t")]
                enum Kind {
                    A,
                    B,
                }
            ),
            parse_quote!(
                #[document(open)]
                enum Kind {
                    A { a: i32 },
                    B,
                }
            ),
        ] {
            assert!(messages(Derive::Embedded, &input, rule).is_empty());
        }
    }
}
