//! The parsed model of a derive input. Every node keeps the syn node it came
//! from, so later stages can point errors at the user's tokens.

use std::cell::Cell;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt;
use syn::{DeriveInput, Ident, Member, Type};

use crate::attr::{
    self, CollationAttr, ContainerAttrs, CopyAttr, Dir, FieldKind, KeyName, PartialTest,
    StorageAttr,
};
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

    /// The stored name behind an index key: the field's serde name, or a
    /// string literal verbatim. An unknown field keeps its Rust name (the
    /// check reports it).
    pub fn stored_key(&self, key: &KeyName) -> String {
        match key {
            KeyName::Field(ident) => {
                let name = ident.unraw().to_string();
                self.field_named(&name).map_or(name, |f| f.stored.clone())
            }
            KeyName::Path(lit) => lit.value(),
            // Only the compiler knows the sub-document's stored names: the
            // Rust path stands for the key in the derive's own checks, and
            // `key_expr` gives the stored path to the generated code.
            KeyName::Nested(key) => key.text(),
        }
    }

    /// The constant expression of a key's stored path, for a key the derive
    /// cannot resolve itself (a Rust path into a sub-document): the field
    /// constant's `name()`, reached through `descend` at each level, so a
    /// field that does not exist is the compiler's error on that name.
    pub fn key_expr(&self, key: &KeyName) -> Option<TokenStream> {
        let KeyName::Nested(key) = key else {
            return None;
        };
        let krate = self.krate();
        let model = self.ident;
        let (last, through) = key.path.split_last()?;
        let (first, middle) = through.split_first()?;
        let mut expr = quote!(<#model as #krate::__private::Document>::FIELDS.#first);
        for segment in middle {
            expr = quote!(#krate::__private::descend(&#expr).#segment);
        }
        if key.call {
            return Some(quote!(#krate::__private::descend(&#expr).#last().name()));
        }
        // The last name is looked up in a constant, whose failure says what
        // the sub-document (or each variant of the enum) holds.
        // The call's first token is the key's name, where the error points.
        let name = last.unraw().to_string();
        let call = quote::quote_spanned! {last.span()=>
            __key_path(__parent, __parent.name(), #name)
        };
        Some(quote! {{
            use #krate::__private::key_path as __key_path;
            const PATH: #krate::__private::KeyPath = {
                let __parent = &#expr;
                #call
            };
            PATH.as_str()
        }})
    }

    /// Every index the model declares, in the order `indexes()` returns them:
    /// references in field order, then many-to-many arrays, then the
    /// container's `index(...)` in declaration order.
    pub fn indexes(&self) -> Vec<Index<'_>> {
        let mut out = Vec::new();
        for field in self.struct_fields().iter().filter(|f| f.is_stored()) {
            if let FieldKind::Reference(reference) = &field.kind {
                let mut keys = vec![(field.stored.clone(), Dir::Asc)];
                if let Some(sort) = &reference.sort {
                    keys.push((self.stored_key(&sort.name), sort.dir));
                }
                // `_id` last, in the sort key's direction, so that children
                // with equal sort values stay in one index order and a page
                // can start right after the last one it returned. A unique
                // reference has no ties (and `_id` would void the uniqueness).
                let tie_break = !reference.unique && keys.iter().all(|(k, _)| k != "_id");
                if tie_break {
                    let dir = keys.last().map_or(Dir::Asc, |(_, d)| *d);
                    keys.push(("_id".to_owned(), dir));
                }
                let mut index = Index::new(
                    keys,
                    Origin::Reference(field.name.clone()),
                    reference.span,
                    reference.unique,
                );
                index.tie_break = tie_break;
                out.push(index);
            }
        }
        for field in self.struct_fields().iter().filter(|f| f.is_stored()) {
            if let FieldKind::ManyToMany(link) = &field.kind {
                out.push(Index::new(
                    vec![(field.stored.clone(), Dir::Asc)],
                    Origin::ManyToMany(field.name.clone()),
                    link.span,
                    false,
                ));
            }
        }
        if let Some(bucket) = &self.attrs.bucket {
            // The newest buckets of a parent first: a push finds its newest
            // bucket, a page reads them in order, and racers that open the
            // same next bucket meet on its uniqueness.
            if let (Some(parent), Some(seq)) = (&bucket.parent, &bucket.seq) {
                let key = |ident: &syn::Ident| {
                    let name = ident.unraw().to_string();
                    self.field_named(&name).map_or(name, |f| f.stored.clone())
                };
                let keys = vec![(key(parent), Dir::Asc), (key(seq), Dir::Desc)];
                out.push(Index::new(keys, Origin::Bucket, bucket.span, true));
            }
        }
        for declared in &self.attrs.indexes {
            let keys = declared
                .keys
                .iter()
                .map(|k| (self.stored_key(&k.name), k.dir))
                .collect();
            let mut index = Index::new(keys, Origin::Declared, declared.span, declared.unique);
            index.key_exprs = declared
                .keys
                .iter()
                .map(|k| self.key_expr(&k.name))
                .collect();
            if let Some(name) = &declared.name {
                index.name = name.value();
                index.name_span = Some(name.span());
            }
            index.sparse = declared.sparse;
            index.hidden = declared.hidden;
            index.collation = declared.collation.as_ref();
            index.weights = declared
                .weights
                .iter()
                .map(|(key, weight, _)| (self.stored_key(key), *weight))
                .collect();
            index.default_language = declared.default_language.as_ref().map(|l| l.value());
            index.expire_after = declared.expire_after.map(|(secs, _)| secs);
            index.partial = declared
                .partial
                .iter()
                .map(|c| (self.stored_key(&c.key), &c.test))
                .collect();
            out.push(index);
        }
        out
    }
}

/// Where an index comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `#[reference(index)]` on this Rust field.
    Reference(String),
    /// `#[many_to_many]` on this Rust field.
    ManyToMany(String),
    /// `#[document(index(...))]`.
    Declared,
    /// `#[document(bucket(...))]`: `(parent, seq)`, unique.
    Bucket,
}

impl Origin {
    pub fn describe(&self) -> String {
        match self {
            Origin::Reference(field) => format!("`#[reference(index)]` on `{field}`"),
            Origin::ManyToMany(field) => format!("`#[many_to_many]` on `{field}`"),
            Origin::Declared => "`index(...)`".to_owned(),
            Origin::Bucket => "`bucket(...)`".to_owned(),
        }
    }
}

/// One index, resolved to stored names.
pub struct Index<'a> {
    pub keys: Vec<(String, Dir)>,
    pub name: String,
    pub name_span: Option<Span>,
    pub unique: bool,
    pub sparse: bool,
    pub hidden: bool,
    pub expire_after: Option<u64>,
    pub partial: Vec<(String, &'a PartialTest)>,
    pub collation: Option<&'a CollationAttr>,
    /// A text index's `weights(...)`, by stored names.
    pub weights: Vec<(String, u32)>,
    /// A text index's `default_language`.
    pub default_language: Option<String>,
    pub origin: Origin,
    pub span: Span,
    /// The last key is the `_id` a reference index adds after its own keys.
    pub tie_break: bool,
    /// Per key, the constant expression of its stored path when the derive
    /// cannot write it (see [`Input::key_expr`]); empty when none needs one.
    pub key_exprs: Vec<Option<TokenStream>>,
}

impl Index<'_> {
    fn new(keys: Vec<(String, Dir)>, origin: Origin, span: Span, unique: bool) -> Self {
        let name = default_name(&keys);
        Index {
            keys,
            name,
            name_span: None,
            unique,
            sparse: false,
            hidden: false,
            expire_after: None,
            partial: Vec::new(),
            collation: None,
            weights: Vec::new(),
            default_language: None,
            origin,
            span,
            tie_break: false,
            key_exprs: Vec::new(),
        }
    }

    /// The keys the index was declared with: without the `_id` tie-break.
    pub fn declared_keys(&self) -> &[(String, Dir)] {
        let own = self.keys.len() - usize::from(self.tie_break);
        &self.keys[..own]
    }
}

/// The server's default index name (`authorId_1_at_-1__id_-1`), as
/// `schema_core::index::default_name` computes it.
pub fn default_name(keys: &[(String, Dir)]) -> String {
    keys.iter()
        .map(|(k, d)| format!("{k}_{}", d.as_text()))
        .collect::<Vec<_>>()
        .join("_")
}

/// The `{authorId: 1, at: -1}` text of a key list, for messages.
pub fn key_text(keys: &[(String, Dir)]) -> String {
    let inner: Vec<String> = keys
        .iter()
        .map(|(k, d)| format!("{k}: {}", d.as_text()))
        .collect();
    format!("{{{}}}", inner.join(", "))
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
