//! The parsed model of a derive input. Every node keeps the syn node it came
//! from, so later stages can point errors at the user's tokens.
//!
//! This file holds the shape (the input, its fields and variants) and its
//! parsing; [`indexes`] the indexes the model declares, resolved to stored
//! names.

mod indexes;

pub use indexes::{key_text, Origin};

use std::cell::Cell;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt;
use syn::{DeriveInput, Ident, Member, Type};

use crate::attr::{self, ContainerAttrs, CopyAttr, EncryptAttr, FieldKind, StorageAttr};
use crate::ctxt::Ctxt;
use crate::serde::{self as serde_attr, RenameRule, SerdeContainer, SerdeField};

/// Which derive is running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Derive {
    Document,
    Embedded,
}

impl Derive {
    pub fn name(self) -> &'static str {
        match self {
            Derive::Document => "Document",
            Derive::Embedded => "Embedded",
        }
    }
}

pub struct Input<'a> {
    pub original: &'a DeriveInput,
    pub derive: Derive,
    pub ident: &'a Ident,
    pub attrs: ContainerAttrs,
    pub serde: SerdeContainer,
    pub data: Data<'a>,
    /// A serde attribute of the input has a typo that serde or the compiler
    /// reports: see [`crate::serde::typo`].
    pub serde_typo: bool,
}

pub enum Data<'a> {
    /// `struct S { a: A }`.
    Struct(Vec<Field<'a>>),
    /// `struct S(A, B)`.
    Tuple(Vec<Field<'a>>),
    /// `struct S;`.
    Unit,
    Enum(Vec<Variant<'a>>),
}

pub struct Field<'a> {
    pub original: &'a syn::Field,
    pub member: Member,
    pub ty: &'a Type,
    /// The Rust name (`author_id`), or the position of a tuple field.
    pub name: String,
    /// The stored (serde) name (`authorId`).
    pub stored: String,
    /// How messages name the field: `tags`, or `Variant.tags` in an enum.
    pub label: String,
    pub serde: SerdeField,
    pub kind: FieldKind,
    /// The derive's storage attributes on the field, in the order written;
    /// `kind` is the first one's.
    pub storage_attrs: Vec<StorageAttr<'a>>,
    /// `#[copy(...)]` or `#[snapshot(...)]`, if declared.
    pub copy: Option<CopyAttr>,
    /// `#[encrypt(...)]`, if declared.
    pub encrypt: Option<EncryptAttr>,
    /// Two of the derive's attributes conflicted on this field (reported by
    /// `check`); checks of the kept one are skipped.
    pub conflicted: bool,
    /// A mistake about the field's type or kind was reported on it (by a
    /// check, or as an attribute conflict): the trait-bound assertions of the
    /// generated code skip it, so that the same mistake is not reported twice.
    pub flagged: Cell<bool>,
}

impl Field<'_> {
    /// The span of the field's name (or type, for a tuple field).
    pub fn span(&self) -> Span {
        match &self.original.ident {
            Some(ident) => ident.span(),
            None => syn::spanned::Spanned::span(self.ty),
        }
    }

    /// Marks the field as reported (see [`Field::flagged`]).
    pub fn flag(&self) {
        self.flagged.set(true);
    }

    /// Whether a mistake was reported on the field.
    pub fn is_flagged(&self) -> bool {
        self.flagged.get()
    }

    /// Whether serde writes the field at all.
    pub fn is_stored(&self) -> bool {
        !self.serde.skip
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Unit,
    Newtype,
    Tuple,
    Struct,
}

pub struct Variant<'a> {
    pub ident: &'a Ident,
    /// The stored (serde) name of the variant.
    pub stored: String,
    pub skip: bool,
    /// `#[serde(untagged)]` on the variant: stored as its content alone.
    pub untagged: bool,
    /// `#[serde(with/serialize_with)]` on the variant: content not described.
    pub custom_serializer: bool,
    pub style: Style,
    pub fields: Vec<Field<'a>>,
}

impl<'a> Input<'a> {
    /// Parses a derive input. Attribute mistakes go to `cx`; the shape is
    /// always returned so that checks and the fallback expansion can run.
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput, derive: Derive) -> Input<'a> {
        let serde = serde_attr::container(&input.attrs);
        let attrs = attr::container(cx, &input.attrs);
        let noun = match input.data {
            syn::Data::Enum(_) => "the enum",
            _ => "the struct",
        };
        attr::reject_field_attrs(cx, &input.attrs, noun);
        let data = match &input.data {
            syn::Data::Struct(data) => match &data.fields {
                syn::Fields::Named(fields) => Data::Struct(parse_fields(
                    cx,
                    fields.named.iter(),
                    serde.rename_all,
                    None,
                )),
                syn::Fields::Unnamed(fields) => {
                    Data::Tuple(parse_fields(cx, fields.unnamed.iter(), None, None))
                }
                syn::Fields::Unit => Data::Unit,
            },
            syn::Data::Enum(data) => Data::Enum(
                data.variants
                    .iter()
                    .map(|v| parse_variant(cx, v, &serde))
                    .collect(),
            ),
            syn::Data::Union(_) => Data::Unit,
        };
        Input {
            original: input,
            derive,
            ident: &input.ident,
            attrs,
            serde,
            data,
            serde_typo: serde_attr::typo::any(input),
        }
    }

    /// The path generated code uses for `schema_core`.
    pub fn krate(&self) -> TokenStream {
        match &self.attrs.krate {
            Some(path) => quote!(#path),
            None => quote!(::schema_core),
        }
    }

    /// The named fields of a struct (empty for other shapes).
    pub fn struct_fields(&self) -> &[Field<'a>] {
        match &self.data {
            Data::Struct(fields) => fields,
            _ => &[],
        }
    }

    /// Every field, including those of enum variants.
    pub fn all_fields(&self) -> Vec<&Field<'a>> {
        match &self.data {
            Data::Struct(fields) | Data::Tuple(fields) => fields.iter().collect(),
            Data::Unit => Vec::new(),
            Data::Enum(variants) => variants.iter().flat_map(|v| v.fields.iter()).collect(),
        }
    }

    /// The struct field with this Rust name.
    pub fn field_named(&self, name: &str) -> Option<&Field<'a>> {
        self.struct_fields().iter().find(|f| f.name == name)
    }

    /// The field stored as `_id`.
    pub fn id_field(&self) -> Option<&Field<'a>> {
        self.struct_fields()
            .iter()
            .find(|f| f.is_stored() && f.stored == "_id")
    }
}

fn parse_fields<'a>(
    cx: &Ctxt,
    fields: impl Iterator<Item = &'a syn::Field>,
    rename_all: Option<RenameRule>,
    variant: Option<&Ident>,
) -> Vec<Field<'a>> {
    fields
        .enumerate()
        .map(|(i, field)| {
            let serde = serde_attr::field(&field.attrs);
            let (member, name) = match &field.ident {
                Some(ident) => (Member::Named(ident.clone()), ident.unraw().to_string()),
                None => (Member::Unnamed(i.into()), i.to_string()),
            };
            let stored = match (&serde.rename, rename_all) {
                (Some(rename), _) => rename.clone(),
                (None, Some(rule)) => rule.apply_to_field(&name),
                (None, None) => name.clone(),
            };
            let label = match variant {
                Some(variant) => format!("{variant}.{name}"),
                None => name.clone(),
            };
            let (kind, storage_attrs) = attr::field(cx, &field.attrs);
            let copy = attr::copy(cx, &field.attrs);
            let encrypt = attr::encrypt(cx, &field.attrs);
            let conflicted = storage_attrs.len() > 1;
            Field {
                original: field,
                member,
                ty: &field.ty,
                name,
                stored,
                label,
                serde,
                kind,
                storage_attrs,
                copy,
                encrypt,
                conflicted,
                flagged: Cell::new(conflicted),
            }
        })
        .collect()
}

fn parse_variant<'a>(
    cx: &Ctxt,
    variant: &'a syn::Variant,
    container: &SerdeContainer,
) -> Variant<'a> {
    let serde = serde_attr::variant(&variant.attrs);
    attr::reject_field_attrs(cx, &variant.attrs, "a variant");
    let name = variant.ident.unraw().to_string();
    let stored = match (&serde.rename, container.rename_all) {
        (Some(rename), _) => rename.clone(),
        (None, Some(rule)) => rule.apply_to_variant(&name),
        (None, None) => name,
    };
    let field_rule = serde.rename_all.or(container.rename_all_fields);
    let (style, fields) = match &variant.fields {
        syn::Fields::Named(fields) => (
            Style::Struct,
            parse_fields(cx, fields.named.iter(), field_rule, Some(&variant.ident)),
        ),
        syn::Fields::Unnamed(fields) => (
            if fields.unnamed.len() == 1 {
                Style::Newtype
            } else {
                Style::Tuple
            },
            parse_fields(cx, fields.unnamed.iter(), None, Some(&variant.ident)),
        ),
        syn::Fields::Unit => (Style::Unit, Vec::new()),
    };
    Variant {
        ident: &variant.ident,
        stored,
        skip: serde.skip,
        untagged: serde.untagged,
        custom_serializer: serde.custom_serializer,
        style,
        fields,
    }
}
