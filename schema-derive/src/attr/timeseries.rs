//! `timeseries(time = at, meta = sensor, granularity = "seconds", span = N,
//! expire_after = N)` in `#[document(...)]`: the model is stored in a
//! time-series collection.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::{Ident, LitStr};

use super::keywords::{EXPIRE_AFTER, GRANULARITY, META, SPAN, TIME, TIMESERIES, TIMESERIES_KEYS};
use super::list::{for_each_nested_key, unknown_key};
use super::value::{int_value, is_list, str_value, value};
use crate::ctxt::Ctxt;

/// The longest bucket span MongoDB takes (`bucketMaxSpanSeconds`): a year.
const MAX_SPAN: u64 = 31_536_000;

/// `timeseries(...)`.
pub struct TimeSeriesAttr {
    /// The `timeseries` keyword.
    pub span: Span,
    pub time: Option<Ident>,
    pub meta: Option<Ident>,
    /// `granularity = "seconds"`, checked when parsed.
    pub granularity: Option<LitStr>,
    /// `span = N` seconds (`bucketMaxSpanSeconds` and
    /// `bucketRoundingSeconds`), with the span of the value.
    pub bucket_span: Option<(u64, Span)>,
    pub expire_after: Option<(u64, Span)>,
}

/// Parses `timeseries(...)`.
pub(super) fn timeseries(cx: &Ctxt, meta: &ParseNestedMeta, span: Span) -> Option<TimeSeriesAttr> {
    if !is_list(cx, meta, TIMESERIES, span, "time = at, meta = sensor") {
        return None;
    }
    let mut out = TimeSeriesAttr {
        span,
        time: None,
        meta: None,
        granularity: None,
        bucket_span: None,
        expire_after: None,
    };
    for_each_nested_key(cx, meta, |inner, name, kspan| match name {
        TIME | META => {
            let Some(input) = value(cx, inner, name, kspan, "field_name") else {
                return;
            };
            match input.call(Ident::parse_any) {
                Ok(ident) if name == TIME => out.time = Some(ident),
                Ok(ident) => out.meta = Some(ident),
                Err(_) => cx.error_at(
                    kspan,
                    format!("`{name}` names a field: `{name} = field_name`"),
                ),
            }
        }
        GRANULARITY => {
            if let Some(lit) = str_value(cx, inner, name, kspan, "\"seconds\"") {
                if matches!(lit.value().as_str(), "seconds" | "minutes" | "hours") {
                    out.granularity = Some(lit);
                } else {
                    cx.error_spanned_by(
                        &lit,
                        "`granularity` is \"seconds\", \"minutes\" or \"hours\" (the expected time between measurements)",
                    );
                }
            }
        }
        SPAN => out.bucket_span = int_value(cx, inner, name, kspan, 1, MAX_SPAN),
        EXPIRE_AFTER => {
            out.expire_after = int_value(cx, inner, name, kspan, 1, u64::from(u32::MAX))
        }
        _ => unknown_key(cx, "document(timeseries)", name, kspan, TIMESERIES_KEYS),
    });
    if out.time.is_none() {
        cx.error_at(span, "`timeseries` needs `time = <field>`: the `bson::DateTime` field each measurement is taken at");
    }
    if let (Some(_), Some((_, at))) = (&out.granularity, out.bucket_span) {
        cx.error_at(
            at,
            "`span` and `granularity` are two ways to size the buckets: give one (the server refuses both)",
        );
    }
    Some(out)
}

impl TimeSeriesAttr {
    /// The time and meta fields' Rust names.
    pub fn time_name(&self) -> Option<String> {
        self.time.as_ref().map(|i| i.unraw().to_string())
    }

    pub fn meta_name(&self) -> Option<String> {
        self.meta.as_ref().map(|i| i.unraw().to_string())
    }
}
