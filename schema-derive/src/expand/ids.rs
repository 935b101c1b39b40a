//! The id rules of a document, as trait bounds spanned on each field's type:
//! - `_id` is one value (not `Option`, not an array), also behind an alias;
//! - a `#[reference(to = T)]` field holds `T::Id` (or `Option<T::Id>`, a
//!   child with no parent);
//! - a `#[many_to_many(to = T)]` array holds items of `T::Id` (on each side
//!   of a two-sided pair, since each side's derive checks its own field).
//!
//! Each reference or link is one call of a `schema_core` assertion whose
//! trait's message names the target and both types (`{Self}`, `{M}`,
//! `{Id}`), spanned on the field's type. Fields already reported by a check
//! are skipped: one mistake, one error. The statements go into the rules fn
//! of `bounded`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::scope::{model_type, private_at};
use crate::ast::{Field, Input};
use crate::attr::FieldKind;

/// The assertions, as statements of a never-called fn.
pub fn asserts(input: &Input) -> Vec<TokenStream> {
    let mut asserts = Vec::new();
    if let Some(id) = input.id_field().filter(|f| !f.is_flagged()) {
        let ty = id.ty;
        let p = private_at(input, ty.span());
        asserts.push(quote_spanned! {ty.span()=> {
            // One of the two is used, depending on the type.
            #[allow(unused_imports)]
            use #p::{IdAccepted as _, IdRefused as _};
            (&#p::IdProbe::<#ty>::NEW).check();
        }});
    }
    for field in input.struct_fields() {
        if !field.is_stored() || field.is_flagged() || field.conflicted {
            continue;
        }
        if let Some(assert) = holds_target_id(input, field) {
            asserts.push(assert);
        }
    }
    asserts
}

/// The assertion that a reference or link field holds its target's id type.
fn holds_target_id(input: &Input, field: &Field) -> Option<TokenStream> {
    let (to, check) = match &field.kind {
        FieldKind::Reference(reference) => (reference.to.as_ref()?, quote!(assert_reference_id)),
        FieldKind::ManyToMany(link) => (link.to.as_ref()?, quote!(assert_link_ids)),
        _ => return None,
    };
    let ty = field.ty;
    let span = ty.span();
    let p = private_at(input, span);
    let target = model_type(to, input);
    Some(quote_spanned! {span=>
        #p::#check::<#ty, #target, <#target as #p::Document>::Id>();
    })
}
