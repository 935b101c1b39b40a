//! The rule of `#[document(pre_images)]`: a root document's collection,
//! and not a time series (the server keeps no pre-images of one).

use crate::ast::{Derive, Input};
use crate::ctxt::Ctxt;

pub(super) fn check(cx: &Ctxt, input: &Input) {
    let Some(span) = input.attrs.pre_images else {
        return;
    };
    if input.derive != Derive::Document {
        cx.error_at(
            span,
            "`pre_images` belongs to a root document (`#[derive(Document)]`): it is an option of its collection",
        );
    } else if input.attrs.timeseries.is_some() {
        cx.error_at(
            span,
            "`pre_images` cannot be kept on a time series: the server records no pre-images of a time-series collection; remove `pre_images`, or store the model in a plain collection",
        );
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::check::testing::messages;

    #[test]
    fn pre_images_are_on_a_plain_root_document() {
        let plain = parse_quote! {
            #[document(collection = "orders", pre_images)]
            struct Order { id: String }
        };
        assert!(messages(Derive::Document, &plain, check).is_empty());
        let found = messages(Derive::Embedded, &plain, check);
        assert!(
            found[0].starts_with("`pre_images` belongs to a root document"),
            "{found:?}"
        );
        let series = parse_quote! {
            #[document(collection = "readings", pre_images, timeseries(time = at))]
            struct Reading { at: bson::DateTime }
        };
        let found = messages(Derive::Document, &series, check);
        assert!(
            found[0].starts_with("`pre_images` cannot be kept on a time series"),
            "{found:?}"
        );
    }
}
