//! What flows between the stages of an [`Aggregate`](super::Aggregate):
//! the model's documents ([`Docs`]), documents with an array unwound
//! ([`Unwound`]), a view of them ([`Projected`]), each joined with the
//! document its reference points at ([`Joined`]), a row type's rows
//! ([`Rows`]), or, after a stage the builder does not know, plain
//! documents ([`Unchecked`]). The stages a
//! type changes carry the new type: a filter or sort names the fields of
//! what flows at that point, and nothing else.

use std::marker::PhantomData;

use bson::{Document as BsonDocument, RawArrayBuf, RawBsonRef, RawDocument, RawDocumentBuf};
use futures_util::future::BoxFuture;

use super::row::{Row, RowSource};
use crate::crypt::{redact, Keys};
use crate::error::{Error, Result};
use crate::model::codec::decode;
use crate::model::timeseries::TimeSeriesSpec;
use crate::model::Document;
use crate::query::lookup::{child_of, parent_of, CHILD, PARENT};
use crate::query::{unseal_as, Opener};
use crate::query::{Projection, Sort};
use crate::typed::field::{RefField, Scope};
use crate::typed::filter::Filter;

/// What flows out of a stage: the type whose typed fields filter and sort
/// it, and how a document of it is read.
pub trait Flow: 'static {
    /// What each document is read as.
    type Item: Send + Unpin + 'static;
    /// The model (or row) of the typed filters and sorts that name its fields.
    type Fields;
    /// Reads one document the server returned.
    #[doc(hidden)]
    fn read(raw: &RawDocument) -> Result<Self::Item>;
    /// How each document is decrypted before it is read, when it may hold
    /// a model's encrypted fields (see `crypt`): a stored document of the
    /// model (whole, a view of it, or unwound), or both sides of a join.
    #[doc(hidden)]
    fn opener() -> Option<Opener> {
        None
    }
}

/// The opener of what holds `M`'s stored documents (whole, viewed or
/// unwound): none when `M` holds no ciphertext.
fn stored<M: Document>() -> Option<Opener> {
    crate::model::cache::may_be_sealed::<M>().then(unseal_as::<M>)
}

/// The documents of model `M`, as stored.
pub struct Docs<M>(PhantomData<fn() -> M>);

/// The documents of model `M` with an array of sub-documents unwound: one
/// document per item, the item in the array's place, so a path through the
/// array (`items.qty`) names one value. Read as plain documents.
pub struct Unwound<M>(PhantomData<fn() -> M>);

/// The documents of `M` through the view `V`, after
/// [`project`](super::Aggregate::project): read as `V`, filtered and
/// sorted by `V`'s own field constants (`Headline::FIELDS.title`).
pub struct Projected<M, V>(PhantomData<fn() -> (M, V)>);

/// The documents of `M`, each with the `P` its reference points at, after
/// [`lookup`](super::Aggregate::lookup): read as `(M, Option<P>)`.
pub struct Joined<M, P>(PhantomData<fn() -> (M, P)>);

/// The rows of `R`, after [`group`](super::Aggregate::group).
pub struct Rows<R>(PhantomData<fn() -> R>);

/// Plain documents, after a stage the builder does not know
/// ([`unchecked_stage`](super::Aggregate::unchecked_stage)).
pub struct Unchecked<M>(PhantomData<fn() -> M>);

impl<M: Document> Flow for Docs<M> {
    type Item = M;
    type Fields = M;
    fn read(raw: &RawDocument) -> Result<M> {
        crate::model::codec::decode::<M>(raw)
    }
    fn opener() -> Option<Opener> {
        stored::<M>()
    }
}

impl<M: Document> Flow for Unwound<M> {
    type Item = BsonDocument;
    type Fields = M;
    fn read(raw: &RawDocument) -> Result<BsonDocument> {
        crate::model::codec::decode_as(raw, M::NAME, M::COLLECTION)
    }
    fn opener() -> Option<Opener> {
        stored::<M>()
    }
}

impl<M: Document, V: Projection<M>> Flow for Projected<M, V> {
    type Item = V;
    type Fields = Projected<M, V>;
    fn read(raw: &RawDocument) -> Result<V> {
        V::read(raw)
    }
    fn opener() -> Option<Opener> {
        stored::<M>()
    }
}

/// A view's field constants filter and sort what flows after `project`.
impl<M: Document, V: Projection<M>> Scope for Projected<M, V> {
    const NAME: &'static str = V::VIEW_NAME;
}

impl<M: Document, P: Document> Flow for Joined<M, P> {
    type Item = (M, Option<P>);
    /// No field constants: the document travels under `child`, its parent
    /// under `parent` (as the joins, [`WithParent`](crate::WithParent), read it).
    type Fields = Joined<M, P>;
    fn read(raw: &RawDocument) -> Result<(M, Option<P>)> {
        let child = decode::<M>(child_of(raw)?).map_err(redact::<M>)?;
        let parent = parent_of(raw)?.map(|p| decode::<P>(p).map_err(redact::<P>));
        Ok((child, parent.transpose()?))
    }
    fn opener() -> Option<Opener> {
        let sealed =
            crate::model::cache::may_be_sealed::<M>() || crate::model::cache::may_be_sealed::<P>();
        sealed.then_some(Opener(open_joined::<M, P>))
    }
}

/// A joined document (`{child, parent: [..]}`, see `query::lookup`) with
/// the child's encrypted fields decrypted as `M` declares them, and the
/// parent's as `P` does.
fn open_joined<M: Document, P: Document>(
    keys: &Keys,
    raw: RawDocumentBuf,
) -> BoxFuture<'_, Result<RawDocumentBuf>> {
    Box::pin(async move {
        let malformed = || Error::Model("unexpected aggregate reply: a joined document".to_owned());
        let mut out = RawDocumentBuf::new();
        for element in raw.iter() {
            let (key, value) = element.map_err(|_| malformed())?;
            match (key.as_str(), value) {
                (CHILD, RawBsonRef::Document(child)) => {
                    out.append(key, keys.unseal::<M>(child.to_owned()).await?);
                }
                (PARENT, RawBsonRef::Array(parents)) => {
                    let mut list = RawArrayBuf::new();
                    for parent in parents {
                        match parent.map_err(|_| malformed())? {
                            RawBsonRef::Document(p) => {
                                list.push(keys.unseal::<P>(p.to_owned()).await?)
                            }
                            other => list.push(other),
                        }
                    }
                    out.append(key, list);
                }
                _ => out.append(key, value),
            }
        }
        Ok(out)
    })
}

impl<R: Row> Flow for Rows<R> {
    type Item = R;
    type Fields = R::Scope;
    fn read(raw: &RawDocument) -> Result<R> {
        crate::model::codec::decode_as(raw, R::ROW_NAME, <R::Of as RowSource>::SOURCE_COLLECTION)
    }
}

/// A row's rows are grouped again by its field constants.
impl<R: Row> RowSource for Rows<R> {
    type SourceFields = R::RowFields;
    const SOURCE_FIELDS: R::RowFields = R::ROW_FIELDS;
    const SOURCE_COLLECTION: &'static str = <R::Of as RowSource>::SOURCE_COLLECTION;
    const SOURCE_IS_MODEL: bool = false;
    const SOURCE_TIMESERIES: Option<TimeSeriesSpec> = None;
}

/// A row's field constants filter and sort its rows.
impl<R: Row> Scope for Rows<R> {
    const NAME: &'static str = R::ROW_NAME;
}

impl<M: Document> Flow for Unchecked<M> {
    type Item = BsonDocument;
    type Fields = Unchecked<M>;
    fn read(raw: &RawDocument) -> Result<BsonDocument> {
        crate::model::codec::decode_as(raw, "an unchecked stage's output", M::COLLECTION)
    }
}

/// What a `group` takes: the model's documents, unwound or not, or the
/// rows of an earlier group.
pub trait Groupable: Flow {
    /// What a row of this group names as its `of`.
    type Source: RowSource;
}
impl<M: Document> Groupable for Docs<M> {
    type Source = M;
}
impl<M: Document> Groupable for Unwound<M> {
    type Source = M;
}
impl<R: Row> Groupable for Rows<R> {
    type Source = Rows<R>;
}

/// What [`filter`](super::Aggregate::filter) takes at a stage whose
/// documents are filtered by the fields of `F`: a `Filter<F>` (or a
/// `bson::Document`, unchecked).
#[diagnostic::on_unimplemented(
    message = "this filter names the fields of another type than what flows at this stage: `{Self}`, where `Filter<{F}>` is expected",
    label = "these fields no longer flow here",
    note = "after `group::<Row>()` a filter names the row's fields (`Row::FIELDS.total`), after `project::<View>()` the view's (`View::FIELDS.title`); filter on the model's fields before those stages"
)]
pub trait FilterOn<F> {
    /// The filter.
    fn into_filter(self) -> Filter<F>;
}
impl<F> FilterOn<F> for Filter<F> {
    fn into_filter(self) -> Filter<F> {
        self
    }
}
impl<F> FilterOn<F> for BsonDocument {
    fn into_filter(self) -> Filter<F> {
        self.into()
    }
}

/// What [`sort`](super::Aggregate::sort) takes at a stage whose documents
/// are sorted by the fields of `F`: a `Sort<F>` (or a `bson::Document`).
#[diagnostic::on_unimplemented(
    message = "this sort names the fields of another type than what flows at this stage: `{Self}`, where `Sort<{F}>` is expected",
    label = "these fields no longer flow here",
    note = "after `group::<Row>()` a sort names the row's fields (`Row::FIELDS.total.desc()`), after `project::<View>()` the view's; sort by the model's fields before those stages"
)]
pub trait SortOn<F> {
    /// The sort.
    fn into_sort(self) -> Sort<F>;
}
impl<F> SortOn<F> for Sort<F> {
    fn into_sort(self) -> Sort<F> {
        self
    }
}
impl<F> SortOn<F> for BsonDocument {
    fn into_sort(self) -> Sort<F> {
        self.into()
    }
}

/// What [`lookup`](super::Aggregate::lookup) joins through: a
/// `#[reference]` field of `M` that names the model it points at.
#[diagnostic::on_unimplemented(
    message = "`lookup` joins through a `#[reference]` field of `{M}` that names its target, and this is a `{Self}`",
    label = "not a reference with a target model",
    note = "declare the field `#[reference(index, to = Parent)]` (its constant is then a `RefField`), or join by hand with `unchecked_stage`"
)]
pub trait JoinThrough<M> {
    /// The model the reference points at.
    type Parent: Document;
    /// The stored name of the field.
    fn stored(&self) -> &'static str;
}
impl<M, T, P: Document> JoinThrough<M> for RefField<M, T, P> {
    type Parent = P;
    fn stored(&self) -> &'static str {
        self.name()
    }
}
