//! What `#[document(timeseries(...))]` adds to `impl Document`: the
//! `TIMESERIES` options by stored name; and, for every other model, `impl
//! Updatable` (a time series has no typed update: the server does not
//! update its measurements).

use proc_macro2::TokenStream;
use quote::quote;

use super::scope::private;
use crate::ast::Input;

/// `const TIMESERIES: ... = Some(..);` inside `impl Document`, or nothing.
pub fn spec(input: &Input) -> TokenStream {
    let Some(ts) = &input.attrs.timeseries else {
        return TokenStream::new();
    };
    let p = private(input);
    let stored =
        |name: Option<String>| name.map(|n| input.field_named(&n).map_or(n, |f| f.stored.clone()));
    let Some(time) = stored(ts.time_name()) else {
        return TokenStream::new();
    };
    let meta = match stored(ts.meta_name()) {
        Some(meta) => quote!(#p::Some(#meta)),
        None => quote!(#p::None),
    };
    let granularity = match ts.granularity.as_ref().map(|l| l.value()).as_deref() {
        Some("minutes") => quote!(#p::Some(#p::Granularity::Minutes)),
        Some("hours") => quote!(#p::Some(#p::Granularity::Hours)),
        Some(_) => quote!(#p::Some(#p::Granularity::Seconds)),
        None => quote!(#p::None),
    };
    let secs = |v: Option<(u64, proc_macro2::Span)>| match v {
        Some((n, _)) => quote!(#p::Some(#n)),
        None => quote!(#p::None),
    };
    let (span, expire) = (secs(ts.bucket_span), secs(ts.expire_after));
    quote! {
        const TIMESERIES: #p::Option<#p::TimeSeriesSpec> = #p::Some(#p::TimeSeriesSpec {
            time: #time,
            meta: #meta,
            granularity: #granularity,
            span_seconds: #span,
            expire_after_seconds: #expire,
        });
    }
}

/// `impl Updatable for T {}` and `impl Replaceable for T {}`, unless `T`
/// is a time series; no `Updatable` either when `T` names
/// earlier shapes (`migrate_from(..)`: a typed update written for the
/// current shape could apply to a document stored at an earlier one).
pub fn updatable(input: &Input) -> TokenStream {
    if input.attrs.timeseries.is_some() {
        return TokenStream::new();
    }
    let p = private(input);
    let ident = input.ident;
    let updatable = input.attrs.migrate_from.is_none().then(|| {
        quote! {
            #[automatically_derived]
            impl #p::Updatable for #ident {}
        }
    });
    quote! {
        #updatable
        #[automatically_derived]
        impl #p::Replaceable for #ident {}
    }
}
