//! The indexes a model declares, resolved to stored names: where each comes
//! from ([`Origin`]), the [`Index`] itself, the stored names and paths behind
//! index keys, and the texts of key lists.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt;

use super::Input;
use crate::attr::{CollationAttr, Dir, FieldKind, KeyName, PartialTest};

impl Input<'_> {
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
