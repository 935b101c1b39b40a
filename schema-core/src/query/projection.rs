//! Partial views of a model: [`Projection`], derived with
//! `#[derive(Projection)]` and `#[projection(of = Model)]`.

use bson::Document as BsonDocument;
use serde::de::DeserializeOwned;

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
pub trait Projection<M: Document>: DeserializeOwned + Send + Unpin + 'static {
    /// The Rust type name, for messages.
    const VIEW_NAME: &'static str;

    /// The `projection` document a query sends (`None`: the whole document).
    fn projection() -> Option<BsonDocument>;
}

impl<M: Document> Projection<M> for M {
    const VIEW_NAME: &'static str = M::NAME;

    fn projection() -> Option<BsonDocument> {
        None
    }
}

/// Whether two stored names are equal, in a constant (the derive's check
/// that a view's field is stored under the model's name).
#[doc(hidden)]
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
