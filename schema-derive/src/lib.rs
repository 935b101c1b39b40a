//! Derive macros for `schema-core`: `#[derive(Document)]` for a root document
//! stored in its own collection and `#[derive(Embedded)]` for a sub-document
//! stored inside one. Use them through `schema_core`, which re-exports them.
//!
//! Each derive runs parse (`ast`, `attr`, `serde`) -> check (`check`)
//! -> expand (`expand`). Every mistake found by parse and check is reported
//! at once; the expansion then falls back to impls with dummy bodies so that
//! the user does not also see a cascade of "trait not implemented" errors,
//! next to the trait-bound assertions of every field no mistake was reported
//! on, so that what only the compiler can see comes out in the same build.

mod ast;
mod attr;
mod check;
mod ctxt;
mod expand;
mod projection;
mod row;
mod serde;
mod size;
mod stamp;
mod suggest;
mod ty;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

use crate::ast::Derive;

/// Derives `schema_core::Document` for a root document: a struct with named
/// fields, one of which is stored as `_id`.
///
/// # Container: `#[document(...)]`
///
/// ```text
/// collection = "posts"                  required; not empty, no `$` or `\0`, not `system.*`
/// crate = "my_crate::schema_core"       path to schema_core when it is re-exported
/// index(keys(a = asc, b = desc))        repeatable; `1` / `-1` also accepted
///     keys("profile.email" = asc)       a string key is a stored path, passed verbatim
///     name = "by_author"                default: the server's `a_1_b_-1`
///     unique, sparse
///     expire_after = 3600               TTL in seconds (>= 1); exactly one key
///     partial(status = "active", email(exists = true), age(gt = 18, lte = 65))
///                                       ops: exists, eq, gt, gte, lt, lte, type
/// open                                  the validator admits fields the model does not
///                                       declare (default: closed, `additionalProperties: false`)
/// ```
///
/// Field names in `keys`, `sort` and `partial` are Rust names; they are
/// checked to exist and mapped to the stored (serde) names. Two indexes on
/// the same keys, or with the same name, are a compile error.
///
/// # Fields
///
/// ```text
/// #[embed(max = 100)]                   an array or map holding at most 100 items
/// #[embed(max = 10, keep = "newest", history = Message)]
///                                       subset pattern: newest|oldest stay embedded,
///                                       `Message` (a Document) holds them all
/// #[embed(unbounded = "reason")]        explicit, greppable opt-out of the rule
/// #[reference(index)]                   one id of another document; index {field: 1}
/// #[reference(index, unique, to = User, sort(at = desc))]
///                                       compound index {authorId: 1, at: -1}
/// #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 50)]
/// #[many_to_many(one_sided, to = Course)]
///                                       an id array (default max DEFAULT_LINK_MAX = 1000),
///                                       indexed {courseIds: 1}
/// ```
///
/// `_id` is one value (not `Option`, `()`, `Bson` or an array, also behind an
/// alias). A `#[reference(to = T)]` field holds `T::Id` or `Option<T::Id>`; a
/// `#[many_to_many(to = T)]` array holds `T::Id`s. A `max` whose items cannot
/// fit in 16 MiB even at their smallest (see the book's rule reference) is
/// refused.
///
/// Every other stored field must be bounded: a `Vec`, `VecDeque`, set, map
/// or `bson::Array` (also inside `Option`, `Box`, `Arc`) without
/// `#[embed(max = N)]` is a compile error, and so is a sub-document type that
/// does not `#[derive(Embedded)]`.
///
/// From serde it reads `rename`, `rename_all` (every casing), `skip`,
/// `skip_serializing`, `default`, `skip_serializing_if` (the field is then
/// not `required`), `with`/`serialize_with` (no type constraint in the
/// validator). `flatten` and `transparent` are rejected.
#[proc_macro_derive(
    Document,
    attributes(document, embed, reference, many_to_many, copy, snapshot, encrypt)
)]
pub fn derive_document(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, Derive::Document).into()
}

/// Derives `schema_core::Embedded` (with `Bounded`, through `BoundedAt`, and `BsonSchema`) for a
/// sub-document: a struct or enum stored inside a document.
///
/// Its fields follow the same rule as a document's (`#[embed(...)]` on
/// arrays and maps); `#[reference]` and `#[many_to_many]` are only accepted
/// when the type is also a `#[derive(Document)]` (it has `collection`).
/// `#[document(crate = "...")]` overrides the path to `schema_core`;
/// `#[document(open)]` lets the validator admit fields the type does not
/// declare (at this type's level only; by default every object is closed).
///
/// The schema of an enum follows serde's representation (external,
/// `tag`, `tag` + `content`, `untagged`): one branch per variant, holding the
/// variant's fields with their own `maxItems`, combined with `oneOf`
/// (`anyOf` when untagged); unit variants share one `enum` list. A variant
/// with `#[serde(with/serialize_with)]` leaves the enum unconstrained. A
/// newtype struct has its field's schema, a tuple struct one schema per
/// position. Type parameters get `BoundedAt<AsField> + BsonSchema` bounds.
#[proc_macro_derive(
    Embedded,
    attributes(document, embed, reference, many_to_many, copy, snapshot, encrypt)
)]
pub fn derive_embedded(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, Derive::Embedded).into()
}

/// Derives `schema_core::Projection<Model>` for a partial view of a model:
/// `#[projection(of = Post)]` on a struct with named fields.
///
/// Each field must be a field of the model by its Rust name, with the same
/// type and the same stored name (serde `rename` / `rename_all` of both
/// sides): a field the model lacks, a different type or a different stored
/// name is a compile error spanned on the field. The view's `projection`
/// document names each stored field (and `_id: 0` unless the view has `_id`);
/// `#[serde(skip)]` fields are neither sent nor checked. The view must also
/// derive serde's `Deserialize`, to be read. `crate = "..."` overrides the
/// path to `schema_core`.
#[proc_macro_derive(Projection, attributes(projection))]
pub fn derive_projection(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    projection::derive(&input).into()
}

/// Derives `schema_core::Row` for the output row of a `group`:
/// `#[row(of = Order)]` on a struct with named fields, each with
/// `#[group(...)]` saying where it comes from, by the model's field names
/// (see `schema_core::aggregate` for the keys). Every operand path must be
/// a field of the model; `sum`/`avg` take numeric fields; each row field's
/// type must be what its accumulator gives; every array accumulator takes
/// `max`. The row must also derive serde's `Deserialize`, to be read.
/// `crate = "..."` overrides the path to `schema_core`.
#[proc_macro_derive(Row, attributes(row, group))]
pub fn derive_row(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    row::derive(&input).into()
}
