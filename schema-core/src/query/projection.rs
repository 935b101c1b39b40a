//! Partial views of a model: [`Projection`], derived with
//! `#[derive(Projection)]` and `#[projection(of = Model)]`.

use bson::{Document as BsonDocument, RawDocument, RawDocumentBuf};
use serde::de::DeserializeOwned;

use crate::error::Result;
use crate::model::Document;

/// A type a query on `M` can yield: `M` itself (the whole document), or a
/// partial view of it whose fields the derive checked against `M`.
///
/// `#[derive(Projection)]` with `#[projection(of = Post)]` implements it: every
/// field of the view must be a field of `Post` (by its Rust name) with the
/// same type and the same stored name (serde renames honoured), or the view
/// does not compile. [`Find::projection`](crate::query::Find::projection)
/// sends [`projection`](Self::projection) and decodes each document as the view.
///
/// ```
/// use schema_core::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Document, Serialize, Deserialize)]
/// #[serde(rename_all = "camelCase")]
/// #[document(collection = "posts")]
/// struct Post {
///     #[serde(rename = "_id")]
///     id: String,
///     #[reference(index)]
///     author_id: String,
///     title: String,
///     body: String,
/// }
///
/// #[derive(Projection, Deserialize)]
/// #[serde(rename_all = "camelCase")]
/// #[projection(of = Post)]
/// struct Headline {
///     author_id: String,
///     title: String,
/// }
///
/// assert_eq!(
///     <Headline as Projection<Post>>::projection(),
///     Some(bson::doc! { "authorId": 1, "title": 1, "_id": 0 })
/// );
/// ```
///
/// A model with earlier shapes (`migrate_from(..)`, see
/// `versions`) is read whole while they may be stored: each
/// document is upgraded to the current shape first and the view taken from
/// that, so a view of an old document reads as a view of its upgrade. Once
/// `migrate_from` is dropped, the projection is sent to the server again.
pub trait Projection<M: Document>: DeserializeOwned + Send + Unpin + 'static {
    /// The Rust type name, for messages.
    const VIEW_NAME: &'static str;

    /// The `projection` document a query sends (`None`: the whole document).
    fn projection() -> Option<BsonDocument>;

    /// Reads one document a query returned as this view; for generated and
    /// internal code (the model itself is read through its upgrade).
    #[doc(hidden)]
    fn read(raw: &RawDocument) -> Result<Self> {
        read_view::<M, Self>(raw)
    }
}

impl<M: Document> Projection<M> for M {
    const VIEW_NAME: &'static str = M::NAME;

    fn projection() -> Option<BsonDocument> {
        None
    }

    fn read(raw: &RawDocument) -> Result<Self> {
        crate::model::codec::decode::<M>(raw)
    }
}

/// Whether `M` names earlier shapes that may still be stored.
fn has_earlier_shapes<M: Document>() -> bool {
    M::VERSIONS.is_some_and(|v| v.first < v.current)
}

/// The projection a query of `M` read as `P` sends: `P`'s, with `_id`
/// always (so that an error can name the document), or none while `M` has
/// earlier shapes (the view is then taken from each document's upgrade).
pub(crate) fn sent<M: Document, P: Projection<M>>() -> Option<BsonDocument> {
    if has_earlier_shapes::<M>() {
        return None;
    }
    P::projection().map(|mut projection| {
        projection.remove("_id");
        projection
    })
}

/// The stored names a view reads, from its projection (made once per view
/// type, not per document).
struct ViewKeys {
    /// The fields it projects.
    keys: Vec<String>,
    /// Whether it reads `_id` (a projection holds `_id` unless it says
    /// otherwise).
    id: bool,
}

impl ViewKeys {
    fn of<M: Document, P: Projection<M>>() -> &'static ViewKeys {
        crate::model::cache::per_model::<P, ViewKeys>(|| {
            let wanted = P::projection().unwrap_or_default();
            let on = |v: &bson::Bson| {
                !matches!(
                    v,
                    bson::Bson::Int32(0) | bson::Bson::Int64(0) | bson::Bson::Boolean(false)
                )
            };
            ViewKeys {
                keys: wanted
                    .iter()
                    .filter(|(key, v)| *key != "_id" && on(v))
                    .map(|(key, _)| key.clone())
                    .collect(),
                id: wanted.get("_id").is_none_or(on),
            }
        })
    }

    fn keeps(&self, key: &str) -> bool {
        if key == "_id" {
            self.id
        } else {
            self.keys.iter().any(|k| k == key)
        }
    }
}

/// A document sent for the view `P` of `M` (see [`sent`]) read as `P`: a
/// document at an earlier version is upgraded first; `_id` is kept out when
/// the view leaves it out; an error names the document by its `_id`.
fn read_view<M: Document, P: Projection<M>>(raw: &RawDocument) -> Result<P> {
    let view_keys = ViewKeys::of::<M, P>();
    if view_keys.id && !has_earlier_shapes::<M>() {
        // What the server sent is the view: read it in place.
        return crate::model::codec::decode_as::<P>(raw, P::VIEW_NAME, M::COLLECTION);
    }
    let upgraded;
    let whole = if has_earlier_shapes::<M>() {
        let model = crate::model::codec::decode::<M>(raw)?;
        upgraded = bson::serialize_to_raw_document_buf(&model)
            .map_err(|source| crate::model::codec::serialize_error(M::NAME, &model, source))?;
        upgraded.as_ref()
    } else {
        raw
    };
    let unreadable =
        |source| crate::model::codec::decode_error(raw, P::VIEW_NAME, M::COLLECTION, source);
    let mut view = RawDocumentBuf::new();
    for element in whole.iter_elements() {
        let element = element.map_err(unreadable)?;
        if view_keys.keeps(element.key().as_str()) {
            view.append(element.key(), element.value().map_err(unreadable)?);
        }
    }
    crate::model::codec::decode_named::<P>(&view, raw, P::VIEW_NAME, M::COLLECTION)
}

/// A view's field holds its model's field's type `T` (an encrypted field's
/// too: a view of it is decrypted as the model's documents are). Checked
/// by the `Projection` derive.
#[diagnostic::on_unimplemented(
    message = "the view's field is not of the model's field's type: the model's is `{Self}`, the view's `{T}`",
    label = "the view's type",
    note = "give the view's field the type the model declares for it"
)]
pub trait ViewOf<M, T> {}
macro_rules! view_of {
    ($ty:ty => $value:ty) => {
        impl<A, B, C> ViewOf<A, $value> for $ty {}
    };
}
crate::typed::field::for_each_plain_field!(view_of);
impl<M, T, A> ViewOf<M, T> for crate::typed::field::EncryptedField<M, T, A> {}

/// For generated code: `_field` (a model's field constant) holds a `T`.
#[doc(hidden)]
pub fn assert_view_field<M, T, F: ViewOf<M, T>>(_field: &F) {}
