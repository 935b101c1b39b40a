//! [`Watch`]: the builder of a model's change stream, awaited for a
//! [`ChangeStream`].

use std::future::IntoFuture;
use std::time::Duration;

use bson::Document as BsonDocument;
use futures_util::future::BoxFuture;
use mongodb::change_stream::event::ResumeToken;
use mongodb::options::FullDocumentBeforeChangeType;

use super::stream::{ChangeStream, Config, Start};
use super::{OnLost, Recovery};
use crate::error::Result;
use crate::model::Document;
use crate::repo::Repo;
use crate::typed::filter::Filter;

impl<M: Document> Repo<M> {
    /// The changes of the model's collection from now on, as a builder:
    /// add a [`filter`](Watch::filter), [`full_document_on_update`](Watch::full_document_on_update),
    /// a token to [`resume_after`](Watch::resume_after), then await it
    /// for a [`ChangeStream`] of [`Event`](super::Event)s (see `watch`).
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize, Debug)]
    /// # #[document(collection = "orders")]
    /// # struct Order {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     status: String,
    /// # }
    /// # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
    /// use futures_util::TryStreamExt;
    /// use schema_core::Change;
    ///
    /// let orders = Repo::<Order>::new(&db);
    /// let shipped = Order::FIELDS.status.eq(&"shipped".to_owned());
    /// let mut changes = orders.watch().filter(shipped).await?;
    /// while let Some(event) = changes.try_next().await? {
    ///     match event.change {
    ///         Change::Insert(order) => println!("{} shipped", order.id),
    ///         Change::Update { id, .. } => println!("{id} shipped"),
    ///         _ => {}
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn watch(&self) -> Watch<'_, M> {
        Watch {
            repo: self,
            filter: None,
            full_on_update: false,
            before: None,
            start: None,
            skip_undecodable: false,
            on_lost: OnLost::default(),
            recovery: Recovery::default(),
            max_await: None,
        }
    }
}

/// The change stream of model `M` to open (see [`Repo::watch`]).
#[must_use = "a change stream opens only when awaited"]
pub struct Watch<'a, M: Document> {
    repo: &'a Repo<M>,
    filter: Option<Result<BsonDocument>>,
    full_on_update: bool,
    before: Option<FullDocumentBeforeChangeType>,
    start: Option<ResumeToken>,
    skip_undecodable: bool,
    on_lost: OnLost,
    recovery: Recovery,
    max_await: Option<Duration>,
}

impl<M: Document> Watch<'_, M> {
    /// Only the changes that `filter` matches (a typed filter,
    /// `Order::FIELDS.status.eq(&s)`, or a `bson::Document`): an insert or
    /// a replace whose document matches, an update whose set fields match
    /// (by stored path: the update "became" what the filter asks, and a
    /// filter on `a.b` matches an update that set `a` whole); deletes carry
    /// no fields and are left out; a drop, rename or invalidate always
    /// comes through. Called again, both must match.
    pub fn filter(mut self, filter: impl Into<Filter<M>>) -> Self {
        self.filter = Some(super::filter::and_filter(self.filter.take(), filter.into()));
        self
    }

    /// An update carries the whole document (`full`), looked up when the
    /// event is read (`fullDocument: "updateLookup"`).
    pub fn full_document_on_update(mut self) -> Self {
        self.full_on_update = true;
        self
    }

    /// An update or a delete carries the document as it was just before it
    /// (`before`, the pre-image the collection keeps:
    /// `fullDocumentBeforeChange: "required"`). The model must keep
    /// pre-images (`#[document(pre_images)]`, turned on by setup's `sync`),
    /// or the stream refuses to open (nothing is sent); a change whose
    /// pre-image the server no longer has (its collection's pre-images were
    /// turned off, or expired) ends the stream with the server's error.
    pub fn before_change(mut self) -> Self {
        self.before = Some(FullDocumentBeforeChangeType::Required);
        self
    }

    /// As [`before_change`](Self::before_change), but a change without a
    /// pre-image comes with `before: None` instead of an error
    /// (`"whenAvailable"`), on any model.
    pub fn before_change_when_available(mut self) -> Self {
        self.before = Some(FullDocumentBeforeChangeType::WhenAvailable);
        self
    }

    /// Starts just after the change of `token` (an [`Event::token`](super::Event::token)
    /// saved before), instead of now.
    pub fn resume_after(mut self, token: ResumeToken) -> Self {
        self.start = Some(token);
        self
    }

    /// Goes on past a change the model cannot read: the stream yields its
    /// error ([`ChangeError::Undecodable`](crate::ChangeError::Undecodable))
    /// and then the next change. Without it the stream ends after that
    /// error.
    pub fn skip_undecodable(mut self) -> Self {
        self.skip_undecodable = true;
        self
    }

    /// What to do when the resume point is gone (see [`OnLost`]; the
    /// default stops).
    pub fn on_lost(mut self, policy: OnLost) -> Self {
        self.on_lost = policy;
        self
    }

    /// How it opens itself again after an error (see [`Recovery`]).
    pub fn recovery(mut self, recovery: Recovery) -> Self {
        self.recovery = recovery;
        self
    }

    /// How long the server waits for a change before answering an empty
    /// batch (`maxAwaitTimeMS`; the server's default is 1 s).
    pub fn max_await_time(mut self, wait: Duration) -> Self {
        self.max_await = Some(wait);
        self
    }
}

impl<'a, M: Document> IntoFuture for Watch<'a, M> {
    type Output = Result<ChangeStream<M>>;
    type IntoFuture = BoxFuture<'a, Result<ChangeStream<M>>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            if matches!(self.before, Some(FullDocumentBeforeChangeType::Required)) && !M::PRE_IMAGES
            {
                return Err(crate::error::Error::Model(format!(
                    "`{}` keeps no pre-images, so a change stream of `{}` cannot carry the \
                     document as it was before a change: declare `#[document(pre_images)]` \
                     and sync (setup turns `changeStreamPreAndPostImages` on), or use \
                     `before_change_when_available`; nothing was sent",
                    M::NAME,
                    M::COLLECTION
                )));
            }
            let pipeline = match self.filter {
                // A deterministic field's operand encrypted, as a find's is.
                Some(filter) => {
                    super::filter::pipeline(Some(self.repo.keys.seal_filter::<M>(filter?).await?))?
                }
                None => Vec::new(),
            };
            let config = Config {
                coll: self.repo.collection().clone_with_type(),
                pipeline,
                full_on_update: self.full_on_update,
                before: self.before,
                skip_undecodable: self.skip_undecodable,
                on_lost: self.on_lost,
                recovery: self.recovery,
                max_await: self.max_await,
                keys: self.repo.keys.clone(),
            };
            let start = match self.start {
                Some(token) => Start::After(token),
                None => Start::Now,
            };
            ChangeStream::open(config, start).await
        })
    }
}
