//! What every helper returns: an [`Action`], awaited directly, that takes a
//! session (and the operation's options) before it is awaited, as the
//! driver's own actions do.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[document(collection = "posts")]
//! # struct Post {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     title: String,
//! # }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let posts = Repo::<Post>::new(&db);
//! let post = Post { id: "p1".into(), title: "Hello".into() };
//! // On its own:
//! posts.insert(&post).await?;
//! // In the caller's session (and transaction, if one is in progress):
//! let mut session = db.client().start_session().await?;
//! let found = posts.get(&post.id).session(&mut session).await?;
//! assert!(found.is_some());
//! # Ok(())
//! # }
//! ```
//!
//! Several actions are grouped in one transaction with
//! [`transaction`](crate::txn::transaction), each given the
//! transaction's session with [`Action::session`]. A helper that writes in a
//! transaction of its own (a two-sided link, a cascading delete,
//! `push_keeping`) joins the caller's transaction when its session is in one,
//! and otherwise runs its own transaction on that session.
//!
//! An action does nothing until it is awaited: the values it was given are
//! checked (a value with no BSON form is an [`Error`](crate::Error)) and the
//! commands are sent then. Each action knows its collection and operation
//! ([`Action::collection`], [`Action::operation`]), the one place every
//! helper call passes through: with the `tracing` feature, where its span
//! starts (see the `trace` module).

use std::fmt;
use std::future::{Future, IntoFuture};

use futures_util::future::BoxFuture;
use mongodb::ClientSession;

use crate::error::Result;

/// The body of an action: called once, when the action is awaited, with the
/// session given to it (if any) and its options.
type Run<'a, T, O> =
    Box<dyn FnOnce(Option<&'a mut ClientSession>, O) -> BoxFuture<'a, Result<T>> + Send + 'a>;

/// One helper call, awaited directly (see the module docs). `T` is what it
/// returns; `O` holds its options (`()` when it has none), set with the
/// methods the operation offers before it is awaited.
#[must_use = "an action does nothing until it is awaited"]
pub struct Action<'a, T, O = ()> {
    collection: &'static str,
    operation: &'static str,
    session: Option<&'a mut ClientSession>,
    options: O,
    run: Run<'a, T, O>,
}

impl<'a, T, O> Action<'a, T, O> {
    /// An action on `collection` named `operation`, with `options`, that runs
    /// `run` when awaited.
    pub(crate) fn new<F, Fut>(
        collection: &'static str,
        operation: &'static str,
        options: O,
        run: F,
    ) -> Self
    where
        F: FnOnce(Option<&'a mut ClientSession>, O) -> Fut + Send + 'a,
        Fut: Future<Output = Result<T>> + Send + 'a,
    {
        Action {
            collection,
            operation,
            session: None,
            options,
            run: Box::new(move |session, options| Box::pin(run(session, options))),
        }
    }

    /// Runs the action in `session`: inside the transaction in progress on
    /// it, if any. A helper that needs a transaction of its own joins that
    /// one (and the caller must abort it if the helper fails), or starts one
    /// on the session when none is in progress.
    pub fn session(mut self, session: &'a mut ClientSession) -> Self {
        self.session = Some(session);
        self
    }

    /// The collection the action works on (the first one, for a helper that
    /// writes to two).
    pub fn collection(&self) -> &'static str {
        self.collection
    }

    /// The helper's name, e.g. `"insert"`, `"link"`, `"push"`.
    pub fn operation(&self) -> &'static str {
        self.operation
    }

    /// The options, for the setters of an operation that has some.
    pub(crate) fn options_mut(&mut self) -> &mut O {
        &mut self.options
    }

    /// Whether it runs in a session given with [`session`](Self::session).
    pub fn has_session(&self) -> bool {
        self.session.is_some()
    }
}

impl<'a, T: 'a, O: 'a> IntoFuture for Action<'a, T, O> {
    type Output = Result<T>;
    type IntoFuture = BoxFuture<'a, Result<T>>;

    fn into_future(self) -> Self::IntoFuture {
        let run = (self.run)(self.session, self.options);
        #[cfg(feature = "tracing")]
        let run = Box::pin(crate::exec::trace::in_span(
            crate::exec::trace::helper_span(self.collection, self.operation),
            run,
        ));
        run
    }
}

impl<T, O: fmt::Debug> fmt::Debug for Action<'_, T, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Action")
            .field("collection", &self.collection)
            .field("operation", &self.operation)
            .field("session", &self.session.is_some())
            .field("options", &self.options)
            .finish()
    }
}
