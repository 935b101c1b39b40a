//! The `$jsonSchema` of a struct or an enum, as serde stores it.
//!
//! A struct is an object with one property per stored field, from the field
//! type's `BsonSchema`, with `maxItems` from `#[embed(max = N)]` and
//! `#[many_to_many(max = N)]`, and `required` for fields always written.
//! Every object is closed (`additionalProperties: false`) unless the type
//! says `#[document(open)]`.
//!
//! An enum gets one branch per variant, following its serde representation
//! (`"V"` is the variant's stored name, `t` the tag, `c` the content key):
//!
//! | representation | unit `V` | `V(T)` | `V(A, B)` | `V { a, b }` |
//! | --- | --- | --- | --- | --- |
//! | external (default) | `"V"` | `{V: T}` | `{V: [A, B]}` | `{V: {a, b}}` |
//! | internal (`tag`) | `{t: "V"}` | `{t: "V", ..T}` | (serde refuses) | `{t: "V", a, b}` |
//! | adjacent (`tag`, `content`) | `{t: "V"}` | `{t: "V", c: T}` | `{t: "V", c: [A, B]}` | `{t: "V", c: {a, b}}` |
//! | untagged | `null` | `T` | `[A, B]` | `{a, b}` |
//!
//! Unit variants share one branch (their names in an `enum` list). Tagged
//! branches differ by their tag, so they are combined with `oneOf`; when any
//! variant is untagged (the enum or the variant says `#[serde(untagged)]`),
//! with `anyOf`. A variant with its own serializer (`with`,
//! `serialize_with`) stores something the derive cannot see: the enum is
//! then left unconstrained (`{}`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use super::scope::{private, private_at};
use crate::ast::{Data, Field, Input, Style, Variant};
use crate::attr::FieldKind;
use crate::ty;

/// The object schema of a struct (an expression).
pub fn object(input: &Input, fields: &[Field]) -> TokenStream {
    object_of(input, struct_properties(input, fields))
}

/// The properties of a struct, as a `&[PropertyDef]` table: its stored
/// fields, plus the tag of `#[serde(tag = "...")]` on a struct (serde then
/// stores the struct's name under that key).
pub fn properties(input: &Input, fields: &[Field]) -> TokenStream {
    let properties = struct_properties(input, fields);
    quote!(&[#(#properties),*])
}

fn struct_properties(input: &Input, fields: &[Field]) -> Vec<TokenStream> {
    let mut properties = Vec::new();
    if let (Data::Struct(_), Some(tag)) = (&input.data, &input.serde.tag) {
        let name = match &input.serde.rename {
            Some(rename) => rename.clone(),
            None => input.ident.unraw().to_string(),
        };
        properties.push(tag_property(input, tag, &[name.as_str()]));
    }
    properties.extend(field_properties(input, fields));
    properties
}

/// The schema of an enum: one branch per stored variant (see the module docs).
pub fn enumeration(input: &Input, variants: &[Variant]) -> TokenStream {
    let p = private(input);
    let stored: Vec<&Variant> = variants.iter().filter(|v| !v.skip).collect();
    if stored.iter().any(|v| v.custom_serializer) {
        return quote!(#p::bson::Document::new());
    }
    let serde = &input.serde;
    let mut units = Vec::new();
    let mut branches = Vec::new();
    let mut untagged = Vec::new();
    for variant in stored {
        if serde.untagged || variant.untagged {
            untagged.push(untagged_branch(input, variant));
        } else if variant.style == Style::Unit {
            units.push(variant.stored.as_str());
        } else {
            branches.push(match (&serde.tag, &serde.content) {
                (None, _) => external_branch(input, variant),
                (Some(tag), None) => internal_branch(input, variant, tag),
                (Some(tag), Some(content)) => adjacent_branch(input, variant, tag, content),
            });
        }
    }
    if !units.is_empty() {
        let unit = match &serde.tag {
            None => quote!(#p::enum_of(&[#(#units),*])),
            Some(tag) => object_of(input, vec![tag_property(input, tag, &units)]),
        };
        branches.insert(0, unit);
    }
    let combine = if untagged.is_empty() {
        quote!(one_of)
    } else {
        quote!(any_of)
    };
    branches.extend(untagged);
    quote!(#p::#combine(#p::vec![#(#branches),*]))
}

/// `{"V": content}` (externally tagged, the serde default).
fn external_branch(input: &Input, variant: &Variant) -> TokenStream {
    let content = content(input, variant);
    let name = &variant.stored;
    object_of(
        input,
        vec![property(input, name, built(content), None, always(input))],
    )
}

/// `{"t": "V", ..fields}` (`#[serde(tag = "t")]`).
fn internal_branch(input: &Input, variant: &Variant, tag: &str) -> TokenStream {
    let p = private(input);
    let name = &variant.stored;
    match (variant.style, stored_fields(variant).as_slice()) {
        (Style::Newtype, [only]) => {
            let schema = schema(input, only);
            let closed = input.attrs.open.is_none();
            quote!(#p::with_tag(#schema, #tag, #name, #closed))
        }
        (Style::Struct, fields) => {
            let mut properties = vec![tag_property(input, tag, &[name.as_str()])];
            properties.extend(fields.iter().map(|f| field_property(input, f)));
            object_of(input, properties)
        }
        // Serde refuses tuple variants here; anything else holds the tag.
        _ => quote!(#p::with_tag(#p::bson::Document::new(), #tag, #name, false)),
    }
}

/// `{"t": "V", "c": content}` (`#[serde(tag = "t", content = "c")]`).
fn adjacent_branch(input: &Input, variant: &Variant, tag: &str, key: &str) -> TokenStream {
    let content = content(input, variant);
    let name = &variant.stored;
    object_of(
        input,
        vec![
            tag_property(input, tag, &[name.as_str()]),
            property(input, key, built(content), None, always(input)),
        ],
    )
}

/// The variant's content alone (`#[serde(untagged)]`); a unit variant is `null`.
fn untagged_branch(input: &Input, variant: &Variant) -> TokenStream {
    let p = private(input);
    match variant.style {
        Style::Unit => quote!({
            let mut schema = #p::bson::Document::new();
            schema.insert("bsonType", "null");
            schema
        }),
        _ => content(input, variant),
    }
}

/// What a data-carrying variant stores as its content: its one field, an
/// array of its fields, or an object of its named fields.
fn content(input: &Input, variant: &Variant) -> TokenStream {
    let fields = stored_fields(variant);
    match (variant.style, fields.as_slice()) {
        (Style::Newtype, [only]) => schema(input, only),
        (Style::Struct, _) => object_of(input, field_properties(input, &variant.fields)),
        (_, fields) => tuple(input, fields),
    }
}

fn stored_fields<'v, 'a>(variant: &'v Variant<'a>) -> Vec<&'v Field<'a>> {
    variant.fields.iter().filter(|f| f.is_stored()).collect()
}

/// A fixed-length array, one schema per position.
pub fn tuple(input: &Input, fields: &[&Field]) -> TokenStream {
    let p = private(input);
    let items = fields.iter().map(|f| schema(input, f));
    quote!(#p::tuple_of(#p::vec![#(#items),*]))
}

/// `object_of(&[..], closed)`: closed unless `#[document(open)]`.
fn object_of(input: &Input, properties: Vec<TokenStream>) -> TokenStream {
    let p = private(input);
    let closed = input.attrs.open.is_none();
    quote!(#p::object_of(&[#(#properties),*], #closed))
}

fn field_properties(input: &Input, fields: &[Field]) -> Vec<TokenStream> {
    fields
        .iter()
        .filter(|f| f.is_stored())
        .map(|field| field_property(input, field))
        .collect()
}

fn field_property(input: &Input, field: &Field) -> TokenStream {
    if field.encrypt.is_some() {
        // The server holds the ciphertext: a binary (see `encrypted`).
        let ty = field.ty;
        let at = private_at(input, ty.span());
        let name = &field.stored;
        return quote_spanned!(ty.span()=> #at::PropertyDef::encrypted::<#ty>(#name));
    }
    let max = max_items(input, field);
    if described(field) && !may_be_left_out(input, field) {
        // The common case, one generic call: `T`'s schema, required unless
        // `T` may be absent.
        //
        // A field whose type forgot `#[derive(Embedded)]` fails this call's
        // `BsonSchema` bound as well as `assert_bounded`'s `BoundedAt` (see
        // `bounded.rs`): two errors, the bounded-ness one first (its
        // asserts are emitted before the validator), and it is the one that
        // says what to write. The second stays because it cannot be
        // removed safely: rustc reports every unmet bound of every call
        // (one trait over both, with a blanket impl, still reports each
        // nested bound), no stable way lets a bound depend on another
        // failing, and dropping this bound would let a type with no
        // `$jsonSchema` description into a validator
        // (`tests/ui/unbounded/subdocument-not-embedded.stderr` shows both).
        let ty = field.ty;
        let at = private_at(input, ty.span());
        let name = &field.stored;
        let max = max.map(|max| quote!(.max(#max)));
        return quote_spanned!(ty.span()=> #at::PropertyDef::of::<#ty>(#name) #max);
    }
    property(
        input,
        &field.stored,
        schema_fn(input, field),
        max,
        required(input, field),
    )
}

/// A required tag holding one of `names`.
fn tag_property(input: &Input, tag: &str, names: &[&str]) -> TokenStream {
    let p = private(input);
    property(
        input,
        tag,
        built(quote!(#p::enum_of(&[#(#names),*]))),
        None,
        always(input),
    )
}

/// A `PropertyDef`: `schema` is a `fn() -> Document`, `max` the `maxItems`
/// expression, `required` a `Required`.
fn property(
    input: &Input,
    name: &str,
    schema: TokenStream,
    max: Option<TokenStream>,
    required: TokenStream,
) -> TokenStream {
    let p = private(input);
    let max = match max {
        Some(max) => quote!(#p::Some(#max)),
        None => quote!(#p::None),
    };
    quote! {
        #p::PropertyDef {
            name: #name,
            schema: #schema,
            max_items: #max,
            required: #required,
        }
    }
}

/// A schema built by an expression, as a `fn() -> Document`.
fn built(schema: TokenStream) -> TokenStream {
    quote!(|| #schema)
}

fn always(input: &Input) -> TokenStream {
    let p = private(input);
    quote!(#p::Required::Always)
}

/// The schema of one field, as an expression.
pub fn schema(input: &Input, field: &Field) -> TokenStream {
    let p = private(input);
    let schema = schema_fn(input, field);
    match max_items(input, field) {
        Some(max) => quote!(#p::with_max_items((#schema)(), #max)),
        None => quote!((#schema)()),
    }
}

/// The schema of one field's type, as a `fn() -> Document` (without the
/// attribute's `max`).
fn schema_fn(input: &Input, field: &Field) -> TokenStream {
    let p = private(input);
    let ty = field.ty;
    let at = private_at(input, ty.span());
    if described(field) {
        return quote_spanned!(ty.span()=> #at::schema_of::<#ty>);
    }
    // A custom serializer stores something other than the Rust type says.
    if field.serde.custom_serializer {
        return quote!(#p::bson::Document::new);
    }
    // `#[embed(unbounded)]`: the escape hatch keeps any type, described or not.
    quote_spanned! {ty.span()=> || {
        #[allow(unused_imports)]
        use #at::{Described as _, Undescribed as _};
        (&#at::SchemaProbe::<#ty>::NEW).schema_or_any()
    }}
}

/// Whether the field stores what its type's `BsonSchema` describes: not
/// under a custom serializer (it stores something else) nor
/// `#[embed(unbounded)]` (its type need not be described).
pub(super) fn described(field: &Field) -> bool {
    !field.serde.custom_serializer && !is_unbounded(field)
}

/// Whether serde may leave the field out of a stored document (`default`,
/// `skip_serializing_if`), whatever its type.
fn may_be_left_out(input: &Input, field: &Field) -> bool {
    input.serde.default || field.serde.may_be_missing
}

/// The `maxItems` of a field: `#[embed(max = N)]`, `#[many_to_many(max = N)]`
/// (default `DEFAULT_LINK_MAX`).
fn max_items(input: &Input, field: &Field) -> Option<TokenStream> {
    if field.serde.custom_serializer {
        return None;
    }
    match &field.kind {
        FieldKind::Embed(embed) => embed.max.map(|max| quote!(#max)),
        FieldKind::ManyToMany(link) => Some(match link.max {
            Some(max) => quote!(#max),
            None => {
                let p = private(input);
                quote!(#p::DEFAULT_LINK_MAX)
            }
        }),
        FieldKind::Plain | FieldKind::Reference(_) => None,
    }
}

/// Whether every stored document holds the field (a `Required`): not when
/// serde may leave it out (`default`, `skip_serializing_if`) or the type
/// allows absence (`Option`).
fn required(input: &Input, field: &Field) -> TokenStream {
    let p = private(input);
    let ty = field.ty;
    if may_be_left_out(input, field) {
        quote!(#p::Required::Never)
    } else if field.serde.custom_serializer {
        if ty::is_option(ty) {
            quote!(#p::Required::Never)
        } else {
            quote!(#p::Required::Always)
        }
    } else {
        let optional = optional_fn(input, field);
        quote!(#p::Required::UnlessOptional(#optional))
    }
}

/// Whether the field's type may be absent, as an expression.
pub fn optional(input: &Input, field: &Field) -> TokenStream {
    let optional = optional_fn(input, field);
    quote!((#optional)())
}

/// Whether the field's type may be absent, as a `fn() -> bool`
/// (`BsonSchema::optional`; for an `#[embed(unbounded)]` field of a type
/// with no description, whether it is written `Option<...>`).
fn optional_fn(input: &Input, field: &Field) -> TokenStream {
    let ty = field.ty;
    let at = private_at(input, ty.span());
    if is_unbounded(field) {
        let written_as_option = ty::is_option(ty);
        quote_spanned! {ty.span()=> || {
            #[allow(unused_imports)]
            use #at::{Described as _, Undescribed as _};
            (&#at::SchemaProbe::<#ty>::NEW).optional_or(#written_as_option)
        }}
    } else {
        quote_spanned!(ty.span()=> <#ty as #at::BsonSchema>::optional)
    }
}

/// `#[embed(unbounded = "reason")]`: no bound, and no description needed.
fn is_unbounded(field: &Field) -> bool {
    matches!(&field.kind, FieldKind::Embed(embed) if embed.unbounded.is_some())
}
