//! The expansion of `#[derive(Row)]` (see the parent module).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::DeriveInput;

use super::ast::{ArrayKind, ModelPath, Operand, RowField, RowInput, Source, Trunc};
use crate::expand::wrap;

/// `&f.a.b`: the typed path, spanned on the attribute's own tokens, so that
/// a field the model lacks is reported there.
fn field_ref(path: &ModelPath) -> TokenStream {
    let span = path
        .iter()
        .map(Spanned::span)
        .reduce(|a, b| a.join(b).unwrap_or(a))
        .unwrap_or_else(Span::call_site);
    let f = quote_spanned!(span=> __fields);
    // The tag of an enum, `details.tag()`, is parsed as the raw segment
    // `r#tag`: the tag's field.
    let segments = path.iter().map(|segment| {
        if *segment == "r#tag" {
            quote_spanned!(segment.span()=> .tag().field())
        } else {
            quote_spanned!(segment.span()=> .#segment)
        }
    });
    quote_spanned!(span=> &#f #(#segments)*)
}

fn span_of(path: &ModelPath) -> Span {
    path.first().map_or_else(Span::call_site, Spanned::span)
}

/// The statements of one row field: its checks and its line of the spec.
fn field_spec(p: &TokenStream, field: &RowField) -> TokenStream {
    let ty = field.ty;
    let stored = &field.stored;
    let ty_span = ty.span();
    match &field.source {
        Source::Key(path, unit) => {
            let r = field_ref(path);
            let at = span_of(path);
            let (operand, add) = match unit {
                Some(Trunc::Unit(unit)) => (
                    quote_spanned!(at=> #p::agg::date(#r)),
                    quote!(__spec.date_key(#stored, __op.name, #unit);),
                ),
                Some(Trunc::Declared) => (
                    quote_spanned!(at=> #p::agg::date(#r)),
                    quote!(__spec.granular_key(#stored, __op.name);),
                ),
                None => (
                    quote_spanned!(at=> #p::agg::operand(#r)),
                    quote!(__spec.key(#stored, __op.name);),
                ),
            };
            let check = quote_spanned!(ty_span=> __op.key::<#ty>(););
            quote!({ let __op = #operand; #check #add })
        }
        Source::Count => {
            let check = quote_spanned!(ty_span=> #p::agg::count::<#ty>(););
            quote!({ #check __spec.count(#stored); })
        }
        Source::Numeric(op, operand) => {
            let which = if *op == "$sum" { "sum" } else { "avg" };
            let which = proc_macro2::Ident::new(which, ty_span);
            let check = quote_spanned!(ty_span=> __op.#which::<#ty>(););
            match operand {
                Operand::Path(path) => {
                    let r = field_ref(path);
                    let at = span_of(path);
                    let operand = quote_spanned!(at=> #p::agg::numeric(#r));
                    quote!({ let __op = #operand; #check __spec.single(#stored, #op, __op.name); })
                }
                Operand::Product(a, b) => {
                    let (ra, rb) = (field_ref(a), field_ref(b));
                    let (sa, sb) = (span_of(a), span_of(b));
                    let oa = quote_spanned!(sa=> #p::agg::numeric(#ra));
                    let ob = quote_spanned!(sb=> #p::agg::numeric(#rb));
                    let product = quote_spanned!(sa=> #p::agg::product(&__a, &__b));
                    quote!({
                        let __a = #oa;
                        let __b = #ob;
                        let __op = #product;
                        #check
                        __spec.product(#stored, #op, [__a.name, __b.name]);
                    })
                }
            }
        }
        Source::Same(op, path) => {
            let r = field_ref(path);
            let at = span_of(path);
            let operand = quote_spanned!(at=> #p::agg::operand(#r));
            let check = quote_spanned!(ty_span=> __op.same::<#ty>(););
            quote!({ let __op = #operand; #check __spec.single(#stored, #op, __op.name); })
        }
        Source::Array {
            kind,
            path,
            max,
            bytes,
            by,
            span,
        } => {
            let r = field_ref(path);
            let at = span_of(path);
            let operand = quote_spanned!(at=> #p::agg::operand(#r));
            let check = quote_spanned!(ty_span=> __op.array::<#ty>(););
            let bytes = match bytes {
                Some(n) => quote!(#n),
                None => quote_spanned!(*span=> #p::agg::item_bytes(&__op)),
            };
            let add = match kind {
                ArrayKind::Push => quote!(__spec.push(#stored, __op.name, #max, __bytes);),
                ArrayKind::AddToSet => {
                    quote!(__spec.add_to_set(#stored, __op.name, #max, __bytes);)
                }
                ArrayKind::Top | ArrayKind::Bottom => {
                    let bottom = *kind == ArrayKind::Bottom;
                    let keys = by.iter().map(|(path, dir)| {
                        let r = field_ref(path);
                        let at = span_of(path);
                        let key = quote_spanned!(at=> #p::agg::operand(#r).name);
                        quote!((#key, #dir))
                    });
                    quote!(__spec.ranked(#stored, __op.name, #max, __bytes, &[#(#keys),*], #bottom);)
                }
            };
            quote!({ let __op = #operand; #check let __bytes: u64 = #bytes; #add })
        }
    }
}

pub fn expand(input: &DeriveInput, row: &RowInput) -> TokenStream {
    let ident = &input.ident;
    let vis = &input.vis;
    let name = syn::ext::IdentExt::unraw(ident).to_string();
    let krate = &row.krate;
    let p = quote!(#krate::__private);
    let model = &row.of;
    let lines = row.fields.iter().map(|f| field_spec(&p, f));
    let fields_ident = format_ident!("__{}RowFields", name);
    // A row that is a model itself filters and sorts by the model's field
    // constants; any other row by its own.
    let (scope, fields_ty, fields_value, own) = if row.model {
        (
            quote!(#ident),
            quote!(<#ident as #p::Document>::Fields),
            quote!(<#ident as #p::Document>::FIELDS),
            TokenStream::new(),
        )
    } else {
        let decls = row.fields.iter().map(|f| {
            let (field, ty) = (f.ident, f.ty);
            quote!(pub #field: #p::Field<#p::Rows<#ident>, #ty>)
        });
        let values = row.fields.iter().map(|f| {
            let (field, stored) = (f.ident, &f.stored);
            quote!(#field: #p::Field::new(#stored))
        });
        let doc = format!(
            "The field constants of the row `{name}`: its stored names, to filter and sort its rows."
        );
        let own = quote! {
            #[doc = #doc]
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #vis struct #fields_ident { #(#decls),* }

            #[automatically_derived]
            impl #ident {
                /// The row's field constants (see the row's derive).
                #vis const FIELDS: #fields_ident = #fields_ident { #(#values),* };
            }
        };
        (
            quote!(#p::Rows<#ident>),
            quote!(#fields_ident),
            quote!(#ident::FIELDS),
            own,
        )
    };
    let body = wrap(quote! {
        #[automatically_derived]
        impl #p::Row for #ident {
            type Of = #model;
            type Scope = #scope;
            type RowFields = #fields_ty;
            const ROW_FIELDS: #fields_ty = #fields_value;
            const ROW_NAME: &'static ::core::primitive::str = #name;

            fn spec() -> #p::RowSpec {
                let __fields = <#model as #p::RowSource>::SOURCE_FIELDS;
                let mut __spec = #p::RowSpec::new();
                #(#lines)*
                __spec
            }
        }

        #own
    });
    quote! { #body }
}
