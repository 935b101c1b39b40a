//! `#[derive(Projection)]`: a partial view of a model, `#[projection(of = Post)]`.
//!
//! Parse (the container's `of` and `crate`, the view's fields and their
//! serde names), then expand: the `Projection<Post>` impl with the
//! `projection` document, and for each field two checks the compiler makes,
//! spanned on the field:
//!
//! - the model has a field of that Rust name with the same type
//!   (`Post::FIELDS.title` must be a `Field<Post, T, _>` or an encrypted
//!   field of `T`, `ViewOf<Post, T>`: "no field" or "not of the model's
//!   field's type" otherwise);
//! - it is stored under the same name (serde renames of both sides): a
//!   constant assertion that fails to evaluate otherwise.
//!
//! It also gives the view its field constants (`Headline::FIELDS.title`),
//! scoped to the view (`Field<Projected<Post, Headline>, T>`), with which
//! the stages after an aggregation's `project::<Headline>()` filter and sort.
//!
//! Every mistake in the attributes is reported at once; after one, no impl
//! is generated.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Path};

use crate::ctxt::Ctxt;
use crate::expand::wrap;

/// The container attribute.
const PROJECTION: &str = "projection";
/// `of = Model`.
const OF: &str = "of";
/// `crate = "path"`.
const CRATE: &str = "crate";

/// Parses, checks and expands one `#[derive(Projection)]`.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let parsed = parse(&cx, input);
    match (cx.finish(), parsed) {
        (Ok(()), Some(view)) => {
            let consts = field_consts(input, &view);
            let body = wrap(expand(input, &view));
            quote!(#consts #body)
        }
        (Err(errors), _) => errors,
        (Ok(()), None) => TokenStream::new(),
    }
}

struct View<'a> {
    of: Path,
    krate: TokenStream,
    fields: Vec<ViewField<'a>>,
}

struct ViewField<'a> {
    ident: &'a syn::Ident,
    ty: &'a syn::Type,
    stored: String,
    span: Span,
}

fn parse<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<View<'a>> {
    let mut of: Option<Path> = None;
    let mut krate: Option<Path> = None;
    let mut seen = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident(PROJECTION)) {
        seen = true;
        let parsed = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            if meta.path.is_ident(OF) {
                let path: Path = meta.value()?.parse()?;
                if of.is_some() {
                    cx.error_at(span, "duplicate `of`");
                } else {
                    of = Some(path);
                }
            } else if meta.path.is_ident(CRATE) {
                let lit: syn::LitStr = meta.value()?.parse()?;
                match lit.parse::<Path>() {
                    Ok(path) if krate.is_none() => krate = Some(path),
                    Ok(_) => cx.error_at(span, "duplicate `crate`"),
                    Err(_) => cx.error_spanned_by(&lit, "`crate` takes a path: `crate = \"my_crate::schema_core\"`"),
                }
            } else {
                cx.error_at(
                    span,
                    "unknown key in `#[projection(...)]`: expected `of = Model` or `crate = \"...\"`",
                );
                // Skip its value, if any, to go on with the next key.
                if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                }
            }
            Ok(())
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
        }
    }
    if of.is_none() {
        let msg = if seen {
            "`#[projection(...)]` needs the model it views: `#[projection(of = Post)]`"
        } else {
            "a projection names the model it views: add `#[projection(of = Post)]`"
        };
        cx.error_at(input.ident.span(), msg);
    }
    let fields = named_fields(
        cx,
        input,
        "a projection",
        "a projection is a struct with named fields, each a field of the model",
    )?;
    let container = crate::serde::container(&input.attrs);
    let mut out = Vec::new();
    for field in fields {
        let Some((ident, _, stored)) = stored_field(
            cx,
            field,
            &container,
            "`#[serde(flatten)]` is not supported in a projection: name each field of the model",
        ) else {
            continue;
        };
        out.push(ViewField {
            ident,
            ty: &field.ty,
            stored,
            span: field.span(),
        });
    }
    let krate = match krate {
        Some(path) => quote!(#path),
        None => quote!(::schema_core),
    };
    Some(View {
        of: of?,
        krate,
        fields: out,
    })
}

/// The view's field constants: a hidden struct of one `Field` per view
/// field, scoped to `Projected<Model, View>`, and `View::FIELDS`.
fn field_consts(input: &DeriveInput, view: &View) -> TokenStream {
    let ident = &input.ident;
    let vis = &input.vis;
    let name = syn::ext::IdentExt::unraw(ident).to_string();
    let krate = &view.krate;
    let p = quote!(#krate::__private);
    let model = &view.of;
    let fields_ident = quote::format_ident!("__{}ViewFields", name);
    let decls = view.fields.iter().map(|f| {
        let (field, ty) = (f.ident, f.ty);
        quote!(pub #field: #p::Field<#p::Projected<#model, #ident>, #ty>)
    });
    let values = view.fields.iter().map(|f| {
        let (field, stored) = (f.ident, &f.stored);
        quote!(#field: #p::Field::new(#stored))
    });
    let doc = format!(
        "The field constants of the view `{name}`: its stored names, to filter and sort what \
         an aggregation's `project::<{name}>()` yields."
    );
    quote! {
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #fields_ident { #(#decls),* }

        #[automatically_derived]
        impl #ident {
            /// The view's field constants (see the view's derive).
            #vis const FIELDS: #fields_ident = #fields_ident { #(#values),* };
        }
    }
}

/// The named fields of a struct that views or derives from a model (a
/// projection, a row): an error for type or lifetime parameters (`what`
/// has none), and `None` with the error `shape` for anything but a struct
/// with named fields.
pub(crate) fn named_fields<'a>(
    cx: &Ctxt,
    input: &'a DeriveInput,
    what: &str,
    shape: &str,
) -> Option<&'a syn::punctuated::Punctuated<syn::Field, syn::Token![,]>> {
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            format!("{what} has no type or lifetime parameters"),
        );
    }
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(&named.named),
            _ => None,
        },
        _ => None,
    };
    if fields.is_none() {
        cx.error_at(input.ident.span(), shape);
    }
    fields
}

/// A view's or a row's field as stored: its identifier, its Rust name and
/// its stored name (serde's `rename`, or the container's `rename_all`);
/// `None` for a field serde skips, and for a flattened one (the error
/// `flatten`).
pub(crate) fn stored_field<'a>(
    cx: &Ctxt,
    field: &'a syn::Field,
    container: &crate::serde::SerdeContainer,
    flatten: &str,
) -> Option<(&'a syn::Ident, String, String)> {
    let ident = field.ident.as_ref()?;
    let serde = crate::serde::field(&field.attrs);
    if let Some(span) = serde.flatten {
        cx.error_at(span, flatten);
        return None;
    }
    if serde.skip {
        return None;
    }
    let name = syn::ext::IdentExt::unraw(ident).to_string();
    let stored = match (serde.rename, container.rename_all) {
        (Some(rename), _) => rename,
        (None, Some(rule)) => rule.apply_to_field(&name),
        (None, None) => name.clone(),
    };
    Some((ident, name, stored))
}

fn expand(input: &DeriveInput, view: &View) -> TokenStream {
    let ident = &input.ident;
    let name = syn::ext::IdentExt::unraw(ident).to_string();
    let p = {
        let krate = &view.krate;
        quote!(#krate::__private)
    };
    let model = &view.of;
    let mut keys: Vec<TokenStream> = view
        .fields
        .iter()
        .map(|f| {
            let stored = &f.stored;
            quote!(projection.insert(#stored, 1i32);)
        })
        .collect();
    if !view.fields.iter().any(|f| f.stored == "_id") {
        keys.push(quote!(projection.insert("_id", 0i32);));
    }
    let checks = view.fields.iter().map(|f| {
        let field = f.ident;
        let ty = f.ty;
        let stored = &f.stored;
        let message = format!(
            "`{name}.{field}` is stored as `{stored}`, not under the name the model stores its \
             `{field}`: give it the model's serde name"
        );
        quote_spanned! {f.span=>
            #p::assert_view_field::<#model, #ty, _>(&<#model as #p::Document>::FIELDS.#field);
            const _: () = ::core::assert!(
                #p::same_name(<#model as #p::Document>::FIELDS.#field.name(), #stored),
                #message
            );
        }
    });
    quote! {
        #[automatically_derived]
        impl #p::Projection<#model> for #ident {
            const VIEW_NAME: &'static ::core::primitive::str = #name;

            fn projection() -> #p::Option<#p::bson::Document> {
                let mut projection = #p::bson::Document::new();
                #(#keys)*
                #p::Some(projection)
            }
        }

        #[automatically_derived]
        fn __check_projection() {
            #(#checks)*
        }
    }
}
