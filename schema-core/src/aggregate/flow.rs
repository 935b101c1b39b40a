//! What flows between the stages of an [`Aggregate`](super::Aggregate):
//! the model's documents ([`Docs`]), documents with an array unwound
//! ([`Unwound`]), a view of them ([`Projected`]), each joined with the
//! document its reference points at ([`Joined`]), a row type's rows
//! ([`Rows`]), or, after a stage the builder does not know, plain
//! documents ([`Unchecked`]). The stages a
//! type changes carry the new type: a filter or sort names the fields of
//! what flows at that point, and nothing else.

use std::marker::PhantomData;

use bson::{Document as BsonDocument, RawDocument};

use super::row::{Row, RowSource};
use crate::error::Result;
use crate::model::codec::decode;
use crate::model::timeseries::TimeSeriesSpec;
use crate::model::Document;
use crate::query::lookup::{child_of, parent_of};
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
    /// Whether each document is a stored document of the model (whole, a
    /// view of it, or unwound): its encrypted fields are decrypted before
    /// it is read.
    #[doc(hidden)]
    const AS_STORED: bool = false;
    /// Whether it joins documents whose encrypted fields the pipeline
    /// would return undecrypted (refused before sending).
    #[doc(hidden)]
    fn joins_sealed() -> bool {
        false
    }
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
    const AS_STORED: bool = true;
}

impl<M: Document> Flow for Unwound<M> {
    type Item = BsonDocument;
    type Fields = M;
    fn read(raw: &RawDocument) -> Result<BsonDocument> {
        crate::model::codec::decode_as(raw, M::NAME, M::COLLECTION)
    }
    const AS_STORED: bool = true;
}

impl<M: Document, V: Projection<M>> Flow for Projected<M, V> {
    type Item = V;
    type Fields = Projected<M, V>;
    fn read(raw: &RawDocument) -> Result<V> {
        V::read(raw)
    }
    const AS_STORED: bool = true;
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
        let child = decode::<M>(child_of(raw)?)?;
        let parent = parent_of(raw)?.map(decode::<P>).transpose()?;
        Ok((child, parent))
    }
    fn joins_sealed() -> bool {
        !crate::model::cache::sealed::<M>().is_empty()
            || !crate::model::cache::sealed::<P>().is_empty()
    }
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
