//! `Document::indexes()`: references first (field order), then many-to-many
//! arrays, then the container's `index(...)` in declaration order.
//!
//! A reference's index is `{ref: 1, sort: dir, _id: dir}` (`{ref: 1, _id: 1}`
//! without a sort key, `{ref: 1[, sort: dir]}` when `unique`): the `_id` last
//! gives equal sort values one order, which keyset pages rely on (see
//! `schema_core::relation::reference`).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::fields::direction;
use super::private;
use crate::ast::{Input, Origin};
use crate::attr::{PartialTest, Value};

pub fn expand(input: &Input) -> TokenStream {
    let p = private(input);
    let specs = input.indexes().into_iter().map(|index| {
        let keys = index.keys.iter().map(|(key, dir)| {
            let dir = direction(&p, *dir);
            quote!((#p::String::from(#key), #dir))
        });
        let origin = match &index.origin {
            Origin::Reference(field) => quote!(#p::IndexOrigin::Reference(#field)),
            Origin::ManyToMany(field) => quote!(#p::IndexOrigin::ManyToMany(#field)),
            Origin::Declared => quote!(#p::IndexOrigin::Declared),
            Origin::Bucket => quote!(#p::IndexOrigin::Bucket),
        };
        let mut options = Vec::new();
        if index.name_span.is_some() {
            let name = &index.name;
            options.push(quote!(spec.name = #p::String::from(#name);));
        }
        if index.unique {
            options.push(quote!(spec.unique = true;));
        }
        if index.hidden {
            options.push(quote!(spec.hidden = true;));
        }
        if index.sparse {
            options.push(quote!(spec.sparse = true;));
        }
        if let Some(secs) = index.expire_after {
            options.push(quote!(spec.expire_after = #p::Some(#p::Duration::from_secs(#secs));));
        }
        if !index.partial.is_empty() {
            let filter = partial_filter(&p, &index.partial);
            options.push(quote!(spec.partial_filter = #p::Some(#filter);));
        }
        quote! {{
            #[allow(unused_mut)]
            let mut spec = #p::IndexSpec::new(#p::vec![#(#keys),*], #origin);
            #(#options)*
            spec
        }}
    });
    quote!(#p::vec![#(#specs),*])
}

/// Builds the `partialFilterExpression` document.
fn partial_filter(p: &TokenStream, conds: &[(String, &PartialTest)]) -> TokenStream {
    let inserts = conds.iter().map(|(key, test)| match test {
        PartialTest::Equals(value) => {
            let value = bson_value(p, value);
            quote!(filter.insert(#key, #value);)
        }
        PartialTest::Ops(ops) => {
            let ops = ops.iter().map(|(op, value)| {
                let op = op.server_name();
                let value = bson_value(p, value);
                quote!(ops.insert(#op, #value);)
            });
            quote! {{
                let mut ops = #p::bson::Document::new();
                #(#ops)*
                filter.insert(#key, ops);
            }}
        }
    });
    quote! {{
        let mut filter = #p::bson::Document::new();
        #(#inserts)*
        filter
    }}
}

fn bson_value(p: &TokenStream, value: &Value) -> TokenStream {
    match value {
        Value::Str(s) => quote!(#p::bson::Bson::String(#p::String::from(#s))),
        Value::Bool(b) => quote!(#p::bson::Bson::Boolean(#b)),
        Value::Int(n) => match i32::try_from(*n) {
            Ok(small) => {
                let lit = Literal::i32_suffixed(small);
                quote!(#p::bson::Bson::Int32(#lit))
            }
            Err(_) => {
                let lit = Literal::i64_suffixed(*n);
                quote!(#p::bson::Bson::Int64(#lit))
            }
        },
        Value::Float(f) => {
            let lit = Literal::f64_suffixed(*f);
            quote!(#p::bson::Bson::Double(#lit))
        }
    }
}
