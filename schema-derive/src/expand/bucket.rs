//! `impl Bucket for T`, for `#[document(bucket(...))]`: the fields' roles
//! by stored name, the items' bound, and the model's other fields (its
//! summary, null in a bucket the framework opens).

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

use super::scope::private;
use crate::ast::Input;
use crate::attr::FieldKind;

pub fn expand(input: &Input) -> TokenStream {
    let Some(bucket) = &input.attrs.bucket else {
        return TokenStream::new();
    };
    let field = |ident: Option<&syn::Ident>| {
        let name = ident?.unraw().to_string();
        input.field_named(&name)
    };
    let (Some(parent), Some(items), Some(count), Some(seq)) = (
        field(bucket.parent.as_ref()),
        field(bucket.items.as_ref()),
        field(bucket.count.as_ref()),
        field(bucket.seq.as_ref()),
    ) else {
        return TokenStream::new();
    };
    let max = match &items.kind {
        FieldKind::Embed(embed) => embed.max.unwrap_or(1),
        _ => 1,
    };
    // `i64` fields are stored as BSON longs, `i32` ones as ints: the values
    // the framework writes match, or the validator would refuse them.
    let long = |f: &crate::ast::Field| crate::ty::bare_name(f.ty).as_deref() == Some("i64");
    let (count_long, seq_long) = (long(count), long(seq));
    let roles = [parent, items, count, seq];
    let extras = input
        .struct_fields()
        .iter()
        .filter(|f| f.is_stored() && f.stored != "_id" && !roles.iter().any(|r| r.name == f.name));
    let extras = extras.map(|f| f.stored.as_str());
    let p = private(input);
    let ident = input.ident;
    let (parent_ty, items_ty) = (parent.ty, items.ty);
    let (parent, items, count, seq) = (&parent.stored, &items.stored, &count.stored, &seq.stored);
    quote! {
        #[automatically_derived]
        impl #p::Bucket for #ident {
            type Parent = #parent_ty;
            type Item = <#items_ty as #p::BoundedCollection>::Item;
            const BUCKET: #p::BucketSpec = #p::BucketSpec {
                parent: #parent,
                items: #items,
                count: #count,
                seq: #seq,
                max: #max,
                count_long: #count_long,
                seq_long: #seq_long,
                extras: &[#(#extras),*],
            };
        }
    }
}
