//! `#[encrypt(deterministic)]` and `#[encrypt(random)]` on a field: its
//! value is stored encrypted (the `encryption` feature of schema-core),
//! under the data key named `"<collection>.<stored name>"`.

use proc_macro2::Span;
use syn::Attribute;

use super::keywords::{DETERMINISTIC, ENCRYPT, ENCRYPT_KEYS, RANDOM};
use super::list::{attr_span, for_each_key, unknown_key, SeenKeys};
use crate::ctxt::Ctxt;

/// How the field is encrypted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EncryptKind {
    Deterministic,
    Random,
}

/// `#[encrypt(...)]`.
pub struct EncryptAttr {
    /// Where `encrypt` is written.
    pub span: Span,
    pub kind: EncryptKind,
}

/// The field's `#[encrypt(...)]`, the first one when there are several
/// (each parsed; a second is reported). One algorithm is required.
pub fn encrypt(cx: &Ctxt, attrs: &[Attribute]) -> Option<EncryptAttr> {
    let mut out: Option<EncryptAttr> = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident(ENCRYPT)) {
        let span = attr_span(attr);
        let mut kind = None;
        let mut keys = 0;
        for_each_key(cx, attr, &mut SeenKeys::default(), |_, key, key_span| {
            keys += 1;
            let parsed = match key {
                DETERMINISTIC => EncryptKind::Deterministic,
                RANDOM => EncryptKind::Random,
                _ => return unknown_key(cx, ENCRYPT, key, key_span, ENCRYPT_KEYS),
            };
            match kind {
                Some(first) if first != parsed => cx.error_at(
                    key_span,
                    "`deterministic` and `random` exclude each other: a field is encrypted one way",
                ),
                _ => kind = Some(parsed),
            }
        });
        let Some(kind) = kind else {
            // A misspelt algorithm was reported with its suggestion.
            if keys > 0 {
                continue;
            }
            cx.error_at(
                span,
                "`encrypt` needs its algorithm: `#[encrypt(deterministic)]` (equality filters \
                 work; equal values are seen to be equal) or `#[encrypt(random)]` (nothing to \
                 filter on, nothing leaked)",
            );
            continue;
        };
        match &out {
            Some(_) => cx.error_at(span, "`#[encrypt]` is already declared on this field"),
            None => out = Some(EncryptAttr { span, kind }),
        }
    }
    out
}
