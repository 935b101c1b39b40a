//! The id rules of a document, as trait bounds spanned on each field's type:
//! - `_id` is one value (not `Option`, not an array), also behind an alias;
//! - a `#[reference(to = T)]` field holds `T::Id` (or `Option<T::Id>`, a
//!   child with no parent);
//! - a `#[many_to_many(to = T)]` array holds items of `T::Id` (on each side
//!   of a two-sided pair, since each side's derive checks its own field).
//!
//! Each reference or link gets a local trait whose message names the field
//! and the target; the types come from the compiler (`{Self}`, `{Id}`).
//! Fields already reported by a check are skipped: one mistake, one error.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{model_type, private_at};
use crate::ast::{Field, Input};
use crate::attr::FieldKind;

/// A never-called fn whose body holds the assertions (empty when there is
/// nothing to check).
pub fn expand(input: &Input) -> TokenStream {
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
    if asserts.is_empty() {
        return TokenStream::new();
    }
    quote! {
        #[allow(dead_code, unused_variables, non_camel_case_types, clippy::all)]
        fn __schema_id_rules() {
            #(#asserts)*
        }
    }
}

/// The assertion that a reference or link field holds its target's id type.
fn holds_target_id(input: &Input, field: &Field) -> Option<TokenStream> {
    let (to, is_reference) = match &field.kind {
        FieldKind::Reference(reference) => (reference.to.as_ref()?, true),
        FieldKind::ManyToMany(link) => (link.to.as_ref()?, false),
        _ => return None,
    };
    let ty = field.ty;
    let span = ty.span();
    let p = private_at(input, span);
    let target = model_type(to, input);
    let target_name = target.to_string().replace(' ', "");
    let name = &field.label;
    let (message, label, note, check_fn) = if is_reference {
        (
            format!("`#[reference]` field `{name}` holds `{{Self}}`, but `{target_name}`'s `_id` is `{{Id}}`"),
            format!("not the `_id` type of `{target_name}`"),
            format!("a reference holds its target's `_id`: write `{name}: {{Id}}`, or `Option<{{Id}}>` for a child that may have no parent; with another type, `parents_of` and `children` find nothing"),
            // A child that may have no parent: `None` is stored as null.
            quote_spanned! {span=>
                #[diagnostic::do_not_recommend]
                impl<T> __HoldsTargetId<T> for #p::Option<T> {}
                fn __holds_target_id<T: __HoldsTargetId<Id>, Id>() {}
            },
        )
    } else {
        (
            format!("`#[many_to_many]` field `{name}` holds ids of type `{{Self}}`, but `{target_name}`'s `_id` is `{{Id}}`"),
            format!("not an array of `{target_name}` ids"),
            format!("an id array holds its target's `_id`s: write `{name}` as an array of `{{Id}}`; with another type, the link helpers and `verify` match no document"),
            quote_spanned! {span=>
                fn __holds_target_id<C: ?Sized + #p::BoundedCollection, Id>()
                where
                    C::Item: __HoldsTargetId<Id>,
                {
                }
            },
        )
    };
    Some(quote_spanned! {span=> {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        trait __HoldsTargetId<Id> {}
        #[diagnostic::do_not_recommend]
        impl<T> __HoldsTargetId<T> for T {}
        #check_fn
        __holds_target_id::<#ty, <#target as #p::Document>::Id>();
    }})
}
