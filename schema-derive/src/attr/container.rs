//! `#[document(...)]` on a container: the collection, the path to
//! `schema_core`, the indexes and `open`.

use proc_macro2::Span;
use syn::{Attribute, LitStr, Meta};

use super::bucket::{bucket, BucketAttr};
use super::index::{index, IndexAttr};
use super::keywords::{
    BUCKET, COLLECTION, CRATE, DOCUMENT, DOCUMENT_KEYS, INDEX, MIGRATE_FROM, OPEN, PRE_IMAGES,
    SCHEMA_VERSION, SHARD_KEY, TIMESERIES, TIMESTAMPS, VERSION,
};
use super::list::{for_each_key, unknown_key, SeenKeys};
use super::shard::{shard_key, ShardKeyAttr};
use super::timeseries::{timeseries, TimeSeriesAttr};
use super::value::{flag, in_parens, int_value, str_value};
use crate::ctxt::Ctxt;

/// `#[document(...)]`.
#[derive(Default)]
pub struct ContainerAttrs {
    /// Whether an unknown key was reported (a misspelled `collection`, say),
    /// so that its absence is not reported a second time.
    pub unknown_keys: bool,
    pub collection: Option<LitStr>,
    pub krate: Option<syn::Path>,
    pub indexes: Vec<IndexAttr>,
    /// `open`, with its span: the validator admits fields the type does not
    /// declare (at this type's own level only; its sub-documents decide for
    /// themselves).
    pub open: Option<Span>,
    /// `version` (the field `version`) or `version = "rev"` (the field
    /// `rev`): the Rust name of the version field, and the key's span.
    pub version: Option<(String, Span)>,
    /// `timestamps`, with its span: the fields `created_at` and `updated_at`.
    pub timestamps: Option<Span>,
    /// `bucket(...)`: the model is a bucket of the bucket pattern.
    pub bucket: Option<BucketAttr>,
    /// `timeseries(...)`: the model is stored in a time-series collection.
    pub timeseries: Option<TimeSeriesAttr>,
    /// `shard_key(...)`: how the model's collection is sharded.
    pub shard_key: Option<ShardKeyAttr>,
    /// `migrate_from(V1, V2)`: the model's earlier shapes, oldest first,
    /// with the key's span.
    pub migrate_from: Option<(Span, Vec<syn::Path>)>,
    /// `schema_version = N`: the current shape's version (by default one
    /// more than the earlier shapes named), with the value's span.
    pub schema_version: Option<(u32, Span)>,
    /// `pre_images`, with its span: the collection keeps each changed
    /// document's previous version for change streams.
    pub pre_images: Option<Span>,
}

impl ContainerAttrs {
    /// The model's versions when it declares any: the current one, the
    /// first of the earlier shapes named, and those shapes (oldest first).
    pub fn versions(&self) -> Option<(u32, u32, &[syn::Path])> {
        let older: &[syn::Path] = self
            .migrate_from
            .as_ref()
            .map_or(&[], |(_, o)| o.as_slice());
        let count = u32::try_from(older.len()).unwrap_or(u32::MAX);
        let current = match self.schema_version {
            Some((n, _)) => n,
            None if older.is_empty() => return None,
            None => count.saturating_add(1),
        };
        Some((current, current.saturating_sub(count), older))
    }
}

/// Checks a collection name as the server would.
fn check_collection(cx: &Ctxt, lit: &LitStr) {
    let name = lit.value();
    if name.is_empty() {
        cx.error_spanned_by(lit, "the collection name must not be empty");
    } else if name.contains('$') {
        cx.error_spanned_by(lit, "a collection name must not contain `$`");
    } else if name.contains('\0') {
        cx.error_spanned_by(
            lit,
            "a collection name must not contain the null character `\\0`",
        );
    } else if name.starts_with("system.") {
        cx.error_spanned_by(
            lit,
            "a collection name must not start with `system.`: that prefix is reserved for the server",
        );
    }
}

/// Parses every `#[document(...)]` on a container (of `#[derive(Document)]`
/// or `#[derive(Embedded)]` alike: which keys a sub-document may use is a
/// rule of `check`).
pub fn container(cx: &Ctxt, attrs: &[Attribute]) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    let mut seen = SeenKeys::repeating(&[INDEX]);
    for attr in attrs.iter().filter(|a| a.path().is_ident(DOCUMENT)) {
        if let Meta::Path(_) = attr.meta {
            cx.error_spanned_by(attr, "expected `#[document(collection = \"...\")]`");
            continue;
        }
        for_each_key(cx, attr, &mut seen, |meta, name, span| match name {
            COLLECTION => {
                if let Some(lit) = str_value(cx, meta, name, span, "\"posts\"") {
                    check_collection(cx, &lit);
                    out.collection = Some(lit);
                }
            }
            CRATE => {
                if let Some(lit) = str_value(cx, meta, name, span, "\"my_crate::schema_core\"") {
                    match lit.parse::<syn::Path>() {
                        Ok(path) => out.krate = Some(path),
                        Err(_) => cx.error_spanned_by(
                            &lit,
                            "`crate` must be a path, such as `crate = \"my_crate::schema_core\"`",
                        ),
                    }
                }
            }
            INDEX => {
                if let Some(index) = index(cx, meta, span) {
                    out.indexes.push(index);
                }
            }
            OPEN => {
                flag(cx, meta, name, span);
                out.open = Some(span);
            }
            VERSION => {
                if meta.input.peek(syn::Token![=]) {
                    if let Some(lit) = str_value(cx, meta, name, span, "\"rev\"") {
                        out.version = Some((lit.value(), lit.span()));
                    }
                } else {
                    flag(cx, meta, name, span);
                    out.version = Some((VERSION.to_owned(), span));
                }
            }
            TIMESTAMPS => {
                flag(cx, meta, name, span);
                out.timestamps = Some(span);
            }
            PRE_IMAGES => {
                flag(cx, meta, name, span);
                out.pre_images = Some(span);
            }
            BUCKET => out.bucket = bucket(cx, meta, span),
            TIMESERIES => out.timeseries = timeseries(cx, meta, span),
            SHARD_KEY => out.shard_key = shard_key(cx, meta, span),
            SCHEMA_VERSION => {
                if let Some((n, at)) =
                    int_value(cx, meta, name, span, 1, u64::from(i32::MAX as u32))
                {
                    out.schema_version = u32::try_from(n).ok().map(|n| (n, at));
                }
            }
            MIGRATE_FROM => {
                let paths = in_parens(cx, meta, MIGRATE_FROM, span, "UserV1, UserV2", |input| {
                    Ok(input
                        .parse_terminated(syn::Path::parse_mod_style, syn::Token![,])?
                        .into_iter()
                        .collect::<Vec<_>>())
                });
                match paths {
                    Some(paths) if paths.is_empty() => cx.error_at(
                        span,
                        "`migrate_from()` is empty: name the model's earlier shapes, oldest first, `migrate_from(UserV1, UserV2)`",
                    ),
                    Some(paths) => out.migrate_from = Some((span, paths)),
                    None => {}
                }
            }
            _ => {
                unknown_key(cx, DOCUMENT, name, span, DOCUMENT_KEYS);
                out.unknown_keys = true;
            }
        });
    }
    out
}
