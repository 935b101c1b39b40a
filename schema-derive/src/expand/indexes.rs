//! The `indexes` table read by `Document::indexes()`: references first (field order), then many-to-many
//! arrays, then the container's `index(...)` in declaration order.
//!
//! A reference's index is `{ref: 1, sort: dir, _id: dir}` (`{ref: 1, _id: 1}`
//! without a sort key, `{ref: 1[, sort: dir]}` when `unique`): the `_id` last
//! gives equal sort values one order, which keyset pages rely on (see
//! `schema_core::reference`).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::fields::direction;
use super::scope::private;
use crate::ast::{Input, Origin};
use crate::attr::{Dir, PartialTest, Value};

/// The `indexes` table: one `IndexDef` per index.
pub fn expand(input: &Input) -> TokenStream {
    let p = private(input);
    let specs = input.indexes().into_iter().map(|index| {
        let keys = index.keys.iter().enumerate().map(|(i, (key, dir))| {
            let dir = direction(&p, *dir);
            match index.key_exprs.get(i).and_then(Option::as_ref) {
                Some(expr) => quote!((#expr, #dir)),
                None => quote!((#key, #dir)),
            }
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
            options.push(quote!(name: #p::Some(#name),));
        }
        if index.unique {
            options.push(quote!(unique: true,));
        }
        match index.keys.iter().find(|(_, dir)| dir.is_kind()) {
            Some((_, Dir::Hashed)) => options.push(quote!(kind: #p::IndexKind::Hashed,)),
            Some((_, Dir::Sphere2d)) => options.push(quote!(kind: #p::IndexKind::Sphere2d,)),
            Some((_, Dir::Text)) => {
                options.push(quote!(kind: #p::IndexKind::Text,));
                if !index.weights.is_empty() || index.default_language.is_some() {
                    let weights = index.weights.iter().map(|(f, w)| quote!((#f, #w)));
                    let language = match &index.default_language {
                        Some(l) => quote!(#p::Some(#l)),
                        None => quote!(#p::None),
                    };
                    options.push(quote!(text: #p::Some(#p::TextDef {
                        weights: &[#(#weights),*],
                        default_language: #language,
                    }),));
                }
            }
            _ => {}
        }
        if index.hidden {
            options.push(quote!(hidden: true,));
        }
        if index.sparse {
            options.push(quote!(sparse: true,));
        }
        if let Some(secs) = index.expire_after {
            options.push(quote!(expire_after: #p::Some(#secs),));
        }
        if !index.partial.is_empty() {
            let filter = partial_filter(&p, &index.partial);
            options.push(quote!(partial: #filter,));
        }
        if let Some(collation) = index.collation {
            let locale = &collation.locale;
            let strength = match collation.strength {
                Some(n) => quote!(#p::Some(#n)),
                None => quote!(#p::None),
            };
            options.push(quote!(collation: #p::Some(#p::CollationDef {
                locale: #locale,
                strength: #strength,
            }),));
        }
        // A key computed by a constant expression is no promotable
        // constant: the table is a constant of its own.
        let keys = if index.key_exprs.iter().any(Option::is_some) {
            quote!({
                const KEYS: &[(&::core::primitive::str, #p::Direction)] = &[#(#keys),*];
                KEYS
            })
        } else {
            quote!(&[#(#keys),*])
        };
        let plain = quote!(#p::IndexDef::new(#keys, #origin));
        if options.is_empty() {
            plain
        } else {
            quote!(#p::IndexDef { #(#options)* ..#plain })
        }
    });
    quote!(&[#(#specs),*])
}

/// The `partialFilterExpression` table: one condition per key.
fn partial_filter(p: &Ident, conds: &[(String, &PartialTest)]) -> TokenStream {
    let conds = conds.iter().map(|(key, test)| match test {
        PartialTest::Equals(value) => {
            let value = bson_value(p, value);
            quote!((#key, #p::PartialDef::Equals(#value)))
        }
        PartialTest::Ops(ops) => {
            let ops = ops.iter().map(|(op, value)| {
                let op = op.server_name();
                let value = bson_value(p, value);
                quote!((#op, #value))
            });
            quote!((#key, #p::PartialDef::Ops(&[#(#ops),*])))
        }
    });
    quote!(&[#(#conds),*])
}

fn bson_value(p: &Ident, value: &Value) -> TokenStream {
    match value {
        Value::Str(s) => quote!(#p::ConstBson::Str(#s)),
        Value::Bool(b) => quote!(#p::ConstBson::Bool(#b)),
        Value::Int(n) => match i32::try_from(*n) {
            Ok(small) => {
                let lit = Literal::i32_suffixed(small);
                quote!(#p::ConstBson::Int32(#lit))
            }
            Err(_) => {
                let lit = Literal::i64_suffixed(*n);
                quote!(#p::ConstBson::Int64(#lit))
            }
        },
        Value::Float(f) => {
            let lit = Literal::f64_suffixed(*f);
            quote!(#p::ConstBson::Double(#lit))
        }
    }
}
