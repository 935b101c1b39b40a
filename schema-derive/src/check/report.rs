//! What the rules share: reporting a mistake on a field (and marking it, so
//! that the generated assertions do not report it again), the fields whose
//! checks run (those whose attributes did not conflict), and a type as
//! written, for messages.

use crate::ast::{Field, Input};
use crate::ctxt::Ctxt;

/// Reports `msg` at `span` about `field`, and marks the field so that the
/// generated trait-bound assertions do not report the same mistake again.
pub(super) fn report<M: std::fmt::Display>(
    cx: &Ctxt,
    field: &Field,
    span: proc_macro2::Span,
    msg: M,
) {
    field.flag();
    cx.error_at(span, msg);
}

/// Fields whose attributes did not conflict: a conflict is reported alone.
pub(super) fn checked_fields<'a, 'b>(input: &'b Input<'a>) -> impl Iterator<Item = &'b Field<'a>> {
    input.all_fields().into_iter().filter(|f| !f.conflicted)
}

/// A type as written, for messages: `Option<ObjectId>`, `(String, String)`.
pub(super) fn written(ty: &syn::Type) -> String {
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
