//! Many-to-many with id arrays: `#[many_to_many(two_sided, to = Course,
//! inverse = student_ids, max = 50)]` on `Student::course_ids`.
//!
//! Two-sided, [`Links::link`] writes both arrays in one multi-document
//! transaction (`$addToSet` on each side; `unlink` uses `$pull`), retried on
//! `TransientTransactionError` and `UnknownTransactionCommitResult` within a
//! [`RetryPolicy`]. Each `$addToSet` is conditional: its filter matches only
//! while the array has room (or already holds the id), so linking into a full
//! side fails with [`Error::LinkFull`] and, the transaction being aborted,
//! writes nothing on either side. On a standalone server the two-sided
//! helpers refuse with [`Error::TransactionsUnsupported`] before writing.
//!
//! One-sided (`#[many_to_many(one_sided, to = Course)]`), a link is one
//! conditional `update`, no transaction.
//!
//! Deleting a document through [`Repo::delete`](crate::Repo::delete) removes
//! its id from every document on the other side in the same transaction.
//! [`Links::verify`] reports edges that only one side records, dangling ids
//! and arrays over their max; [`Links::repair`] fixes the asymmetric edges.

pub(crate) mod combine;
mod queue;
mod repair;
mod report;
mod side;
mod verify;

use std::sync::Arc;

use bson::{Bson, Document as BsonDocument};
use mongodb::{ClientSession, Collection, Database};

use crate::error::{Error, Result};
use crate::exec::action::Action;
use crate::model::codec::id_to_bson;
use crate::model::Document;
use crate::relation::Relation;
use crate::txn::{self, RetryPolicy, TxnConfig, TxnState};
use crate::typed::field::LinkField;
use mongodb::options::TransactionOptions;
use queue::Combiner;

pub use report::{Asymmetry, AsymmetryKind, OverMax, RepairReport, VerifyReport};
pub(crate) use side::{add_to, holds, pull_from, Side};
pub(crate) use verify::verify_sides;

/// Link and unlink helpers for one `#[many_to_many]` field of `M` whose ids
/// are `_id`s of `R` (see the module docs).
pub struct Links<M: Document, C, R: Document> {
    db: Database,
    field: LinkField<M, C, R>,
    /// Stored name and max of the inverse array on `R` (two-sided only).
    inverse: Option<(&'static str, u32)>,
    txn: TxnConfig,
    support: TxnState,
    /// Links into one document, combined (see [`combine`]).
    combiner: Arc<Combiner>,
    combining: bool,
}

impl<M: Document, C, R: Document> Clone for Links<M, C, R> {
    fn clone(&self) -> Self {
        Links {
            db: self.db.clone(),
            field: self.field,
            inverse: self.inverse,
            txn: self.txn.clone(),
            support: self.support.clone(),
            combiner: Arc::clone(&self.combiner),
            combining: self.combining,
        }
    }
}

impl<M: Document, C, R: Document> Links<M, C, R> {
    /// The helpers for `field` in `db`. For a two-sided field the inverse
    /// array's max is read from `R`'s declaration of it (or
    /// [`DEFAULT_LINK_MAX`](crate::DEFAULT_LINK_MAX) when `R` declares none).
    pub fn new(db: &Database, field: LinkField<M, C, R>) -> Self {
        let inverse = field.inverse_name().map(|name| {
            let max = R::relations()
                .into_iter()
                .find_map(|r| match r {
                    Relation::ManyToMany {
                        stored,
                        target,
                        max,
                        ..
                    } if stored == name && target == M::COLLECTION => Some(max),
                    _ => None,
                })
                .unwrap_or(crate::DEFAULT_LINK_MAX);
            (name, max)
        });
        Links {
            db: db.clone(),
            field,
            inverse,
            txn: TxnConfig::default(),
            support: TxnState::default(),
            combiner: Arc::default(),
            combining: true,
        }
    }

    /// Whether concurrent two-sided links into one document (through this
    /// `Links` and its clones) are combined into one transaction (on by
    /// default; see `combine`).
    pub fn with_combining(mut self, combining: bool) -> Self {
        self.combining = combining;
        self
    }

    /// Uses `policy` for the transactions it runs itself.
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.txn.policy = policy;
        self
    }

    /// Starts the transactions it runs itself with `options`, which win
    /// field by field over [`helper_options`](crate::txn::helper_options)
    /// (`{ w: "majority", j: true }`): e.g. `w: 1`, a `wtimeout`, a read
    /// concern or `maxCommitTimeMS`. A transaction of the caller's that it
    /// joins keeps the caller's options.
    pub fn with_transaction_options(mut self, options: TransactionOptions) -> Self {
        self.txn.options = Some(options);
        self
    }

    /// The options the transactions it runs itself start with: those given
    /// to [`with_transaction_options`](Self::with_transaction_options), and
    /// `{ w: "majority", j: true }` where they set no write concern.
    pub fn transaction_options(&self) -> TransactionOptions {
        self.txn.options()
    }

    /// How many times the transactions of these helpers (`link`, `unlink`,
    /// `verify`, `repair`) were retried after a transient error (a whole body
    /// or a commit run again), counted since [`Links::new`] and shared with
    /// their clones. Other helpers count in their own.
    pub fn retries(&self) -> u64 {
        self.support.retries()
    }

    /// Whether both sides keep an array (so writes run in a transaction).
    pub fn is_two_sided(&self) -> bool {
        self.inverse.is_some()
    }

    pub(super) fn combiner(&self) -> &Combiner {
        &self.combiner
    }

    pub(super) fn support(&self) -> &TxnState {
        &self.support
    }

    pub(super) fn database(&self) -> &Database {
        &self.db
    }

    pub(super) fn txn_config(&self) -> &TxnConfig {
        &self.txn
    }

    /// The inverse side; an error for a one-sided link (never combined).
    pub(super) fn right_side_or_err(&self) -> Result<Side> {
        self.right()
            .ok_or_else(|| Error::Model("a one-sided link has no inverse side".into()))
    }

    /// Links `left` to `right` in a transaction of its own, not combined.
    pub(super) async fn link_alone(&self, left: Bson, right: Bson) -> Result<()> {
        self.write_alone(None, Op::Link, left, right).await
    }

    pub(super) fn left(&self) -> Side {
        Side {
            collection: M::COLLECTION,
            field: self.field.name(),
            max: self.field.max(),
            stamp: crate::model::stamp::updated::<M>,
        }
    }

    fn right(&self) -> Option<Side> {
        self.inverse.map(|(field, max)| Side {
            collection: R::COLLECTION,
            field,
            max,
            stamp: crate::model::stamp::updated::<R>,
        })
    }

    fn coll(&self, name: &str) -> Collection<BsonDocument> {
        self.db.collection(name)
    }

    /// Records the edge `left`–`right`: two-sided, both `$addToSet`s and the
    /// commit (`update`, `update`, `commitTransaction`); one-sided, one
    /// `update`. Linking an existing edge changes nothing and succeeds.
    /// Two-sided links into one `right` that arrive while another is being
    /// written (through this `Links` or its clones, without a session) are
    /// combined into the next transaction, each caller still getting its
    /// own result after the commit (see `combine`).
    /// Fails with [`Error::LinkFull`] or [`Error::NotFound`], writing nothing.
    ///
    /// In a [`session`](Action::session), two-sided, it joins the caller's
    /// transaction if one is in progress (the caller must abort it if this
    /// fails), else runs a transaction of its own on that session.
    pub fn link<'a>(&'a self, left: &'a M::Id, right: &'a R::Id) -> Action<'a, ()> {
        self.action("link", Op::Link, left, right)
    }

    /// Removes the edge from both sides (`$pull`), in one transaction when
    /// two-sided (in a [`session`](Action::session), as [`link`](Self::link)).
    /// Unlinking an absent edge, or a missing document, succeeds.
    pub fn unlink<'a>(&'a self, left: &'a M::Id, right: &'a R::Id) -> Action<'a, ()> {
        self.action("unlink", Op::Unlink, left, right)
    }

    fn action<'a>(
        &'a self,
        operation: &'static str,
        op: Op,
        left: &'a M::Id,
        right: &'a R::Id,
    ) -> Action<'a, ()> {
        Action::new(M::COLLECTION, operation, (), move |s, ()| async move {
            self.write(s, op, id_to_bson::<M>(left)?, id_to_bson::<R>(right)?)
                .await
        })
    }

    async fn write(
        &self,
        session: Option<&mut ClientSession>,
        op: Op,
        left: Bson,
        right: Bson,
    ) -> Result<()> {
        if session.is_none() && matches!(op, Op::Link) && self.combining && self.is_two_sided() {
            return self.link_combined(left, right).await;
        }
        self.write_alone(session, op, left, right).await
    }

    async fn write_alone(
        &self,
        session: Option<&mut ClientSession>,
        op: Op,
        left: Bson,
        right: Bson,
    ) -> Result<()> {
        if !self.is_two_sided() {
            return self.apply(session, op, &left, &right).await;
        }
        let models = [M::NAME, R::NAME];
        txn::transact(
            &self.support,
            &models,
            self.db.client(),
            session,
            &self.txn,
            (self, op, &left, &right),
            |s, ctx| {
                let (this, op, left, right) = *ctx;
                Box::pin(async move { this.apply(Some(s), op, left, right).await })
            },
        )
        .await
    }

    /// The writes of one link or unlink, on both sides when two-sided.
    async fn apply(
        &self,
        mut session: Option<&mut ClientSession>,
        op: Op,
        left: &Bson,
        right: &Bson,
    ) -> Result<()> {
        let sides = [
            Some((self.left(), left, right)),
            self.right().map(|s| (s, right, left)),
        ];
        for (side, id, value) in sides.into_iter().flatten() {
            match op {
                Op::Link => self.add(session.as_deref_mut(), side, id, value).await?,
                Op::Unlink => self.pull(session.as_deref_mut(), side, id, value).await?,
            }
        }
        Ok(())
    }

    /// `$addToSet` if the array has room or already holds `value`.
    pub(super) async fn add(
        &self,
        session: Option<&mut ClientSession>,
        side: Side,
        id: &Bson,
        value: &Bson,
    ) -> Result<()> {
        add_to(&self.db, session, side, id, value).await
    }

    async fn pull(
        &self,
        session: Option<&mut ClientSession>,
        side: Side,
        id: &Bson,
        value: &Bson,
    ) -> Result<()> {
        pull_from(&self.db, session, side, id, value).await
    }
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Link,
    Unlink,
}
