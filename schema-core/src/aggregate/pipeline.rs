//! [`Aggregate`]: a pipeline on a [`Repo`], built stage by stage on typed
//! paths, its leading `$match`/`$sort` passing the index guard as a `find`
//! does, awaited for a [`DocStream`] of what its last stage yields.

use std::future::IntoFuture;
use std::marker::PhantomData;

use bson::{doc, Bson, Document as BsonDocument, RawDocumentBuf};
use futures_util::future::BoxFuture;
use futures_util::{StreamExt, TryStreamExt};
use mongodb::ClientSession;

use super::flow::{
    Docs, FilterOn, Flow, Groupable, JoinThrough, Joined, Projected, Rows, SortOn, Unchecked,
    Unwound,
};
use super::row::{Row, RowSource, RowSpec};
use crate::error::{Error, Result};
use crate::exec::action::Action;
use crate::model::schema_version::VERSION_FIELD;
use crate::model::timeseries::TimeSeriesSpec;
use crate::model::Document;
use crate::query::explain::PlanSummary;
use crate::query::guard::{self, Served};
use crate::query::lookup::{Lookup, CHILD};
use crate::query::DEFAULT_BATCH_SIZE;
use crate::query::{server_indexes, with_session, DocStream, Projection};
use crate::repo::Repo;
use crate::typed::field::EmbedField;
use crate::typed::path::Nested;

/// One stage, as the builder keeps it until the pipeline is sent.
pub(super) enum Stage {
    Match(Result<BsonDocument>),
    Sort(BsonDocument),
    Limit(u64),
    Skip(u64),
    Unwind(&'static str),
    /// A row's group: its name, its spec, and whether it reads the
    /// model's stored paths (not an earlier row's fields) and time series.
    Group(&'static str, Box<RowSpec>, bool, Option<TimeSeriesSpec>),
    Project(Option<BsonDocument>),
    Lookup(Lookup),
    Unchecked(BsonDocument),
}

impl<M: Document> Repo<M> {
    /// An aggregation pipeline on `M`'s collection, built stage by stage
    /// (see [`aggregate`](crate::aggregate)): `.filter(..)` and `.sort(..)`
    /// on `M`'s typed fields, then `.group::<Row>()`, then filters and
    /// sorts on the row's own fields; awaited, a [`DocStream`] of rows.
    pub fn aggregate(&self) -> Aggregate<'_, M> {
        Aggregate {
            repo: self,
            stages: Vec::new(),
            scan: false,
            disk: false,
            batch_size: None,
            session: None,
            _flow: PhantomData,
        }
    }
}

/// An aggregation on `M` whose stages so far yield `S` (see
/// [`Repo::aggregate`]).
#[must_use = "a pipeline does nothing until it is awaited"]
pub struct Aggregate<'a, M: Document, S = Docs<M>> {
    repo: &'a Repo<M>,
    stages: Vec<Stage>,
    scan: bool,
    disk: bool,
    batch_size: Option<u32>,
    session: Option<&'a mut ClientSession>,
    _flow: PhantomData<fn() -> S>,
}

/// A pipeline ready to send: its stages, and the indexes the guard found
/// serving its leading stages.
struct Prepared {
    pipeline: Vec<BsonDocument>,
    served: Option<Served>,
}

impl<'a, M: Document, S: Flow> Aggregate<'a, M, S> {
    pub(super) fn then<T>(self, stage: Option<Stage>) -> Aggregate<'a, M, T> {
        let mut stages = self.stages;
        stages.extend(stage);
        Aggregate {
            repo: self.repo,
            stages,
            scan: self.scan,
            disk: self.disk,
            batch_size: self.batch_size,
            session: self.session,
            _flow: PhantomData,
        }
    }

    /// `$match`: keeps what `filter` matches, a filter on the fields of
    /// what flows here (`M`'s before a `group`, the row's after it).
    pub fn filter(self, filter: impl FilterOn<S::Fields>) -> Self {
        let filter = filter.into_filter().into_document();
        self.then(Some(Stage::Match(filter)))
    }

    /// `$sort` on the fields of what flows here; called again right after,
    /// sorts by the keys given before, then these (as
    /// [`Find::sort`](crate::query::Find::sort) does).
    pub fn sort(mut self, sort: impl SortOn<S::Fields>) -> Self {
        let sort = sort.into_sort().document().clone();
        if let Some(Stage::Sort(before)) = self.stages.last_mut() {
            before.extend(sort);
            return self;
        }
        self.then(Some(Stage::Sort(sort)))
    }

    /// `$limit`.
    pub fn limit(self, n: u64) -> Self {
        self.then(Some(Stage::Limit(n)))
    }

    /// `$skip`.
    pub fn skip(self, n: u64) -> Self {
        self.then(Some(Stage::Skip(n)))
    }

    /// A stage the builder does not know, sent as it is: what follows it is
    /// not checked (its output is read as plain `bson::Document`s). The
    /// typed stages before it keep their checks, the index guard's included.
    pub fn unchecked_stage(self, stage: BsonDocument) -> Aggregate<'a, M, Unchecked<M>> {
        self.then(Some(Stage::Unchecked(stage)))
    }

    /// Allows a collection scan on purpose: the index guard does not check
    /// the leading stages. Greppable on purpose.
    pub fn scan(mut self) -> Self {
        self.scan = true;
        self
    }

    /// Lets large sorts and groups spill to disk (`allowDiskUse`).
    pub fn allow_disk_use(mut self) -> Self {
        self.disk = true;
        self
    }

    /// How many results the server returns per batch;
    /// [`DEFAULT_BATCH_SIZE`] when not set.
    pub fn batch_size(mut self, n: u32) -> Self {
        self.batch_size = Some(n);
        self
    }

    /// Runs in the caller's session (and its transaction, if one is in
    /// progress); the stream then borrows the session until it is dropped.
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }

    /// The results as a stream, the pipeline sent on the first poll (an
    /// error, the guard's included, is its first item).
    pub fn stream(self) -> DocStream<'a, S::Item> {
        DocStream::from_stream(
            futures_util::stream::once(self.into_future())
                .map(|opened| match opened {
                    Ok(stream) => stream,
                    Err(e) => DocStream::failed(e),
                })
                .flatten(),
        )
    }

    /// Every result, collected into a `Vec`.
    pub async fn all(self) -> Result<Vec<S::Item>> {
        self.await?.try_collect().await
    }

    /// How many results the pipeline yields (a `$count` stage), after the
    /// same checks.
    pub async fn count(self) -> Result<u64> {
        let counted = self.then::<Unchecked<M>>(Some(Stage::Unchecked(doc! { "$count": "n" })));
        let rows = counted.all().await?;
        let n = rows.first().map_or(Ok(0), |row| match row.get("n") {
            Some(Bson::Int32(n)) => Ok(i64::from(*n)),
            Some(Bson::Int64(n)) => Ok(*n),
            _ => Err(Error::Model(format!("unexpected `$count` reply: {row}"))),
        })?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// What the server does for this pipeline: `explain` (`executionStats`)
    /// of the `aggregate` it sends, after the same checks (the session is
    /// not used). The summary is the plan of its leading stages, the part
    /// an index serves.
    pub async fn explain(mut self) -> Result<PlanSummary> {
        self.seal_stages().await?;
        let prepared = self.prepare()?;
        let mut command = doc! {
            "aggregate": M::COLLECTION,
            "pipeline": prepared.pipeline,
            "cursor": {},
        };
        if self.disk {
            command.insert("allowDiskUse", true);
        }
        let reply = self
            .repo
            .database()
            .run_command(doc! { "explain": command, "verbosity": "executionStats" })
            .await
            .map_err(|e| Error::from_server(e, "explain an aggregation on", M::COLLECTION))?;
        PlanSummary::from_aggregate_explain(&reply)
    }

    /// The pipeline, once every check passed: the guard on the leading
    /// `$match`/`$sort` (unless [`scan`](Self::scan)), and each group's.
    fn prepare(&mut self) -> Result<Prepared> {
        let stages = std::mem::take(&mut self.stages);
        let mut pipeline = Vec::with_capacity(stages.len() + 1);
        let (mut filters, mut sort, mut leading) = (Vec::new(), None, true);
        let mut unwound: Vec<&'static str> = Vec::new();
        for stage in stages {
            let is_leading = matches!(stage, Stage::Match(_) | Stage::Sort(_));
            leading &= is_leading;
            match stage {
                Stage::Match(filter) => {
                    let filter = filter?;
                    if leading {
                        filters.push(filter.clone());
                    }
                    pipeline.push(doc! { "$match": filter });
                }
                Stage::Sort(by) => {
                    if leading {
                        sort = Some(by.clone());
                    }
                    pipeline.push(doc! { "$sort": by });
                }
                Stage::Limit(n) => {
                    pipeline.push(doc! { "$limit": i64::try_from(n).unwrap_or(i64::MAX) })
                }
                Stage::Skip(n) => {
                    pipeline.push(doc! { "$skip": i64::try_from(n).unwrap_or(i64::MAX) })
                }
                Stage::Unwind(path) => {
                    unwound.push(path);
                    pipeline.push(doc! { "$unwind": format!("${path}") });
                }
                Stage::Group(row, mut spec, model, series) => {
                    spec.at_granularity(series).map_err(refused::<M>)?;
                    if model {
                        check_paths::<M>(row, &spec, &unwound)?;
                    }
                    check_size::<M>(row, &spec)?;
                    pipeline.push(spec.group_stage());
                    pipeline.push(spec.project_stage());
                }
                Stage::Project(project) => {
                    if let Some(project) = project {
                        pipeline.push(doc! { "$project": project });
                    }
                }
                Stage::Lookup(lookup) => {
                    pipeline.push(doc! { "$replaceRoot": { "newRoot": { CHILD: "$$ROOT" } } });
                    pipeline.push(lookup.stage());
                }
                Stage::Unchecked(stage) => pipeline.push(stage),
            }
        }
        let filter = match filters.len() {
            0 => BsonDocument::new(),
            1 => filters.pop().unwrap_or_default(),
            _ => doc! { "$and": filters },
        };
        let served = if self.scan {
            None
        } else {
            Some(guard::plan_with::<M>(&filter, sort.as_ref(), None)?)
        };
        guard::targeting::note::<M>(&filter, "aggregate");
        Ok(Prepared { pipeline, served })
    }

    /// Checks the pipeline and sends it, in `session` when there is one.
    async fn open(
        mut self,
        session: Option<&'a mut ClientSession>,
    ) -> Result<DocStream<'a, S::Item>> {
        self.seal_stages().await?;
        let Prepared { pipeline, served } = self.prepare()?;
        super::stored::require_current(self.repo).await?;
        if let Some(served) = &served {
            self.repo.require_indexes(&served.indexes).await?;
        }
        let raw = self.repo.raw_docs();
        let aggregate = raw
            .aggregate(pipeline)
            .with_type::<RawDocumentBuf>()
            .allow_disk_use(self.disk)
            .batch_size(self.batch_size.unwrap_or(DEFAULT_BATCH_SIZE));
        let (seen, served) = (self.repo.seen_shared(), served);
        let err =
            move |e| server_indexes::index_error_in::<M>(&seen, e, "aggregate on", served.as_ref());
        // A model's documents (and a join's) are decrypted on the way, as
        // `find` does.
        let keys = S::opener().map(|open| (self.repo.keys.clone(), open));
        Ok(match (session, keys) {
            (Some(session), Some((keys, open))) => {
                let cursor = aggregate.session(&mut *session).await.map_err(&err)?;
                DocStream::in_session_unsealed::<M>(cursor, session, keys, open, S::read, err)
            }
            (Some(session), None) => {
                let cursor = aggregate.session(&mut *session).await.map_err(&err)?;
                DocStream::in_session(cursor, session, S::read, err)
            }
            (None, Some((keys, open))) => {
                let cursor = aggregate.await.map_err(&err)?;
                DocStream::unsealed::<M>(cursor, keys, open, S::read, err)
            }
            (None, None) => {
                let cursor = aggregate.await.map_err(&err)?;
                DocStream::new(cursor, S::read, err)
            }
        })
    }

    /// The pipeline on a model with encrypted fields (see
    /// [`sealed`](super::sealed)): each filter on its stored documents
    /// (before any group, join or unchecked stage) has its equalities'
    /// operands encrypted, as `find`'s are; a group reading an encrypted
    /// field is refused.
    async fn seal_stages(&mut self) -> Result<()> {
        if crate::model::cache::sealed::<M>().is_empty() {
            return Ok(());
        }
        let mut stored = true;
        for stage in &mut self.stages {
            match stage {
                Stage::Match(Ok(filter)) if stored => {
                    let plain = std::mem::take(filter);
                    *filter = self.repo.keys.seal_filter::<M>(plain).await?;
                }
                Stage::Group(row, spec, model, _) => {
                    if *model {
                        super::sealed::no_sealed_group::<M>(row, spec.paths())?;
                    }
                    stored = false;
                }
                Stage::Lookup(_) | Stage::Unchecked(_) => stored = false,
                _ => {}
            }
        }
        Ok(())
    }
}

impl<'a, M: Document, S: Groupable> Aggregate<'a, M, S> {
    /// `$group` into rows of `R` (see [`Row`]), then the `$project` that
    /// gives them `R`'s shape; what follows names `R`'s fields. `R` groups
    /// what flows here: `M` (`#[row(of = M)]`), or, after an earlier
    /// `group::<E>()`, `E`'s rows (`#[row(of = Rows<E>)]`). Refused
    /// before sending when `R` reads a path through an array that no
    /// earlier [`unwind`](Aggregate::unwind) unwound, or when its array
    /// accumulators could make a row larger than 16 MiB.
    pub fn group<R: Row<Of = S::Source>>(self) -> Aggregate<'a, M, Rows<R>> {
        let (model, series) = (
            <S::Source as RowSource>::SOURCE_IS_MODEL,
            <S::Source as RowSource>::SOURCE_TIMESERIES,
        );
        self.then(Some(Stage::Group(
            R::ROW_NAME,
            Box::new(R::spec()),
            model,
            series,
        )))
    }
}

impl<'a, M: Document> Aggregate<'a, M, Docs<M>> {
    /// `$unwind` of a bounded array of sub-documents: one document per
    /// item, so a path through it (`Order::FIELDS.items.qty`) names that
    /// item's value; the documents are no longer `M`s.
    pub fn unwind<C: Nested, P>(self, field: EmbedField<M, C, P>) -> Aggregate<'a, M, Unwound<M>> {
        self.then(Some(Stage::Unwind(field.name())))
    }
}

impl<'a, M: Document> Aggregate<'a, M, Docs<M>> {
    /// `$project` of the view `V` (`#[derive(Projection)]`, the fields of
    /// `M` it names): what follows reads `V`s, and its filters and sorts
    /// name `V`'s field constants (`Headline::FIELDS.title`), nothing else.
    /// On a model that names earlier shapes, sent only once none is
    /// stored, as every pipeline (see [`aggregate`](crate::aggregate)).
    pub fn project<V: Projection<M>>(self) -> Aggregate<'a, M, Projected<M, V>> {
        // `_id` stays unless the view drops it, so an error can name the document.
        let project = V::projection().map(|mut project| {
            project.remove("_id");
            if M::VERSIONS.is_some() {
                // A view of a versioned model reads the version it was
                // stored at (the current one, checked before sending).
                project.insert(VERSION_FIELD, 1);
            }
            project
        });
        self.then(Some(Stage::Project(project)))
    }

    /// `$lookup` through the `#[reference]` `field`: each document with the
    /// `P` it points at (`None` where none exists), matched on `P`'s `_id`,
    /// in the form the joins ([`WithParent`](crate::WithParent)) send (the
    /// document under `child`, its parent under `parent`). Read as
    /// `(M, Option<P>)`; the stages before it keep the guard's checks.
    pub fn lookup<J: JoinThrough<M>>(self, field: J) -> Aggregate<'a, M, Joined<M, J::Parent>> {
        let lookup = Lookup {
            from: <J::Parent as Document>::COLLECTION,
            local: field.stored(),
        };
        self.then(Some(Stage::Lookup(lookup)))
    }
}

impl<'a, M: Document> Aggregate<'a, M, Unwound<M>> {
    /// `$unwind` of another bounded array of sub-documents.
    pub fn unwind<C: Nested, P>(self, field: EmbedField<M, C, P>) -> Self {
        self.then(Some(Stage::Unwind(field.name())))
    }
}

/// A group of `row` reads no path through an array not unwound before it.
fn check_paths<M: Document>(row: &'static str, spec: &RowSpec, unwound: &[&str]) -> Result<()> {
    for path in spec.paths() {
        for array in guard::array_prefixes::<M>(path) {
            if unwound.contains(&array) {
                if array == *path {
                    return Err(refused::<M>(format!(
                        "`{row}` reads `{path}`, an unwound array, whole: name a field of its items (`{path}.<field>`)"
                    )));
                }
            } else if array != *path {
                return Err(refused::<M>(format!(
                    "`{row}` reads `{path}`, a path through the array `{array}`: unwind that array first (`.unwind(..)` of `{array}` before `.group::<{row}>()`)"
                )));
            }
        }
    }
    Ok(())
}

/// The rows of `row` fit in one document each.
fn check_size<M: Document>(row: &'static str, spec: &RowSpec) -> Result<()> {
    match spec.over_size() {
        Some(arithmetic) => Err(refused::<M>(format!(
            "a `{row}` row could be too large: {arithmetic}"
        ))),
        None => Ok(()),
    }
}

pub(super) fn refused<M: Document>(reason: String) -> Error {
    Error::AggregateRefused {
        collection: M::COLLECTION,
        reason,
    }
}

impl<'a, M: Document, S: Flow> IntoFuture for Aggregate<'a, M, S> {
    type Output = Result<DocStream<'a, S::Item>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(mut self) -> Self::IntoFuture {
        let session = self.session.take();
        let action = Action::new(M::COLLECTION, "aggregate", self, |s, agg: Self| agg.open(s));
        with_session(action, session).into_future()
    }
}
