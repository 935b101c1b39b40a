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

pub mod combine;
mod queue;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Collection, Database};

use crate::error::{id_text, Error, Result};
use crate::exec::action::Action;
use crate::model::codec::{id_to_bson, value_key as key};
use crate::model::Document;
use crate::relation::Relation;
use crate::txn::with_session;
use crate::txn::{self, RetryPolicy, TxnConfig, TxnState};
use crate::typed::field::LinkField;
use mongodb::options::TransactionOptions;
use queue::Combiner;

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

/// One side of a link: a collection, its id array and the array's max.
#[derive(Clone, Copy)]
pub(crate) struct Side {
    pub(crate) collection: &'static str,
    pub(crate) field: &'static str,
    pub(crate) max: u32,
    /// Adds the version and timestamps its model keeps to an update.
    pub(crate) stamp: fn(&mut BsonDocument, bool) -> Result<()>,
}

impl Side {
    /// For a side that is only read: no stamp.
    pub(crate) fn no_stamp(_update: &mut BsonDocument, _upsert: bool) -> Result<()> {
        Ok(())
    }

    /// The condition that the array has room for `k` more ids (it holds at
    /// most `max - k`: no element at that index); `None` when `k` is over
    /// the max.
    pub(super) fn room_for(&self, k: usize) -> Option<BsonDocument> {
        let last = (self.max as usize).checked_sub(k)?;
        let mut room = BsonDocument::new();
        room.insert(format!("{}.{last}", self.field), doc! { "$exists": false });
        Some(room)
    }
}

/// An edge recorded by one side only, or pointing at a missing document.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Asymmetry {
    /// The `_id` of the `M` document (the side that declares the field).
    pub left: Bson,
    /// The `_id` of the `R` document.
    pub right: Bson,
    /// What is wrong.
    pub kind: AsymmetryKind,
}

/// What is wrong with an edge. `verify` may learn to tell more kinds
/// apart, so a `match` needs a `_` arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AsymmetryKind {
    /// The left lists the right, which exists but does not list the left.
    MissingOnRight,
    /// The right lists the left, which exists but does not list the right.
    MissingOnLeft,
    /// The left lists a right that does not exist.
    RightMissing,
    /// The right lists a left that does not exist (two-sided only).
    LeftMissing,
}

/// An id array holding more ids than its max (only a write that bypassed
/// both the helpers and the validator can do this).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OverMax {
    /// Collection.
    pub collection: &'static str,
    /// The document's `_id`.
    pub id: Bson,
    /// Stored field name.
    pub field: &'static str,
    /// How many ids it holds.
    pub len: usize,
    /// Its max.
    pub max: u32,
}

/// What [`Links::verify`] found.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct VerifyReport {
    /// Distinct edges recorded by either side.
    pub edges: usize,
    /// Edges not recorded by both sides.
    pub asymmetric: Vec<Asymmetry>,
    /// Arrays over their max.
    pub over_max: Vec<OverMax>,
}

impl VerifyReport {
    /// No asymmetric edge and no array over its max.
    pub fn is_consistent(&self) -> bool {
        self.asymmetric.is_empty() && self.over_max.is_empty()
    }
}

/// What [`Links::repair`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RepairReport {
    /// Edges completed by adding the missing half.
    pub completed: usize,
    /// Half-edges removed (the other document is missing, or its array is full).
    pub removed: usize,
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
    /// default; see [`combine`]).
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
    /// own result after the commit (see [`combine`]).
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

    /// Reads both sides and reports asymmetric edges, dangling ids and
    /// arrays over their max. Two-sided, both reads run in one transaction,
    /// so they see one snapshot even while links are being written.
    /// Reads every document that holds a link: meant for maintenance, not
    /// for a request path.
    ///
    /// In a [`session`](Action::session), the reads run in the caller's
    /// transaction if one is in progress (so they see its writes not yet
    /// committed), else (two-sided) in a transaction of their own on that
    /// session.
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[serde(rename_all = "camelCase")]
    /// # #[document(collection = "students")]
    /// # struct Student {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 50)]
    /// #     course_ids: Vec<String>,
    /// # }
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[serde(rename_all = "camelCase")]
    /// # #[document(collection = "courses")]
    /// # struct Course {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     #[many_to_many(two_sided, to = Student, inverse = course_ids, max = 500)]
    /// #     student_ids: Vec<String>,
    /// # }
    /// # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
    /// let links = Links::new(&db, Student::FIELDS.course_ids);
    /// let report = links.verify().await?;
    /// for edge in &report.asymmetric {
    ///     println!("{} -> {}: {:?}", edge.left, edge.right, edge.kind);
    /// }
    /// // In a transaction of the caller's: it sees the links written in it.
    /// let mut session = db.client().start_session().await?;
    /// session.start_transaction().await?;
    /// links.link(&"s1".to_owned(), &"c1".to_owned()).session(&mut session).await?;
    /// assert!(links.verify().session(&mut session).await?.is_consistent());
    /// session.commit_transaction().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn verify(&self) -> Action<'_, VerifyReport> {
        Action::new(M::COLLECTION, "verify", (), move |s, ()| self.verify_in(s))
    }

    /// [`verify`](Self::verify), in `session` when given.
    async fn verify_in(&self, session: Option<&mut ClientSession>) -> Result<VerifyReport> {
        if !self.is_two_sided() {
            return self.verify_opt(session).await;
        }
        let models = [M::NAME, R::NAME];
        txn::transact(
            &self.support,
            &models,
            self.db.client(),
            session,
            &self.txn,
            self,
            |s, this| {
                let this = *this;
                Box::pin(async move { this.verify_opt(Some(s)).await })
            },
        )
        .await
    }

    async fn verify_opt(&self, session: Option<&mut ClientSession>) -> Result<VerifyReport> {
        verify_sides(&self.db, self.left(), self.right(), R::COLLECTION, session).await
    }

    /// Fixes what [`verify`](Self::verify) reports: an edge that one side
    /// records and the other could record is completed (the missing
    /// `$addToSet`, if that array has room); otherwise (the other document is
    /// missing, or its array is full) the lone half is removed. Each edge is
    /// re-read and fixed in a transaction of its own, so concurrent links
    /// are never undone. Every document it writes is stamped with its
    /// model's version and `updated_at`, as by [`link`](Self::link).
    ///
    /// In a [`session`](Action::session), the `verify` and every fix join
    /// the caller's transaction if one is in progress (an abort undoes all
    /// of them; the caller must abort it if this fails), else (two-sided)
    /// each runs in a transaction of its own on that session.
    ///
    /// ```no_run
    /// # use schema_core::prelude::*;
    /// # use schema_core::transaction;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[serde(rename_all = "camelCase")]
    /// # #[document(collection = "students")]
    /// # struct Student {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 50)]
    /// #     course_ids: Vec<String>,
    /// # }
    /// # #[derive(Document, Serialize, Deserialize)]
    /// # #[serde(rename_all = "camelCase")]
    /// # #[document(collection = "courses")]
    /// # struct Course {
    /// #     #[serde(rename = "_id")]
    /// #     id: String,
    /// #     #[many_to_many(two_sided, to = Student, inverse = course_ids, max = 500)]
    /// #     student_ids: Vec<String>,
    /// # }
    /// # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
    /// let links = Links::new(&db, Student::FIELDS.course_ids);
    /// let done = links.repair().await?;
    /// println!("{} completed, {} removed", done.completed, done.removed);
    /// // All the fixes in one transaction, with the caller's other writes.
    /// transaction(db.client())
    ///     .run(async |s| links.repair().session(s).await)
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn repair(&self) -> Action<'_, RepairReport> {
        Action::new(M::COLLECTION, "repair", (), move |s, ()| self.repair_in(s))
    }

    /// [`repair`](Self::repair), in `session` when given.
    async fn repair_in(&self, mut session: Option<&mut ClientSession>) -> Result<RepairReport> {
        let report = self.verify_in(session.as_deref_mut()).await?;
        let mut done = RepairReport::default();
        for edge in &report.asymmetric {
            let fixed = if self.is_two_sided() {
                let models = [M::NAME, R::NAME];
                txn::transact(
                    &self.support,
                    &models,
                    self.db.client(),
                    session.as_deref_mut(),
                    &self.txn,
                    (self, edge),
                    |s, ctx| {
                        let (this, edge) = *ctx;
                        Box::pin(async move { this.repair_edge(Some(s), edge).await })
                    },
                )
                .await?
            } else {
                self.repair_edge(session.as_deref_mut(), edge).await?
            };
            match fixed {
                Some(true) => done.completed += 1,
                Some(false) => done.removed += 1,
                None => {}
            }
        }
        Ok(done)
    }

    /// Re-reads one edge and fixes it: `Some(true)` completed, `Some(false)`
    /// removed, `None` already consistent.
    async fn repair_edge(
        &self,
        mut session: Option<&mut ClientSession>,
        edge: &Asymmetry,
    ) -> Result<Option<bool>> {
        let left = self.left();
        let (l_exists, l_has) = self
            .holds(session.as_deref_mut(), left, &edge.left, &edge.right)
            .await?;
        let Some(right) = self.right() else {
            // One-sided: only a dangling id can be wrong.
            let exists = with_session!(
                self.coll(R::COLLECTION)
                    .find_one(doc! { "_id": edge.right.clone() })
                    .projection(doc! { "_id": 1 }),
                session.as_deref_mut()
            )
            .map_err(|e| Error::from_server(e, "find in", R::COLLECTION))?
            .is_some();
            if l_has && !exists {
                self.pull(session, left, &edge.left, &edge.right).await?;
                return Ok(Some(false));
            }
            return Ok(None);
        };
        let (r_exists, r_has) = self
            .holds(session.as_deref_mut(), right, &edge.right, &edge.left)
            .await?;
        // (side holding the half, its id, value; the other side, its id, value, exists)
        let (lone, lone_id, lone_value, other, other_id, other_value, other_exists) =
            match (l_has, r_has) {
                (true, false) => (
                    left,
                    &edge.left,
                    &edge.right,
                    right,
                    &edge.right,
                    &edge.left,
                    r_exists,
                ),
                (false, true) => (
                    right,
                    &edge.right,
                    &edge.left,
                    left,
                    &edge.left,
                    &edge.right,
                    l_exists,
                ),
                _ => return Ok(None),
            };
        if other_exists {
            match self
                .add(session.as_deref_mut(), other, other_id, other_value)
                .await
            {
                Ok(()) => return Ok(Some(true)),
                Err(Error::LinkFull { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        self.pull(session, lone, lone_id, lone_value).await?;
        Ok(Some(false))
    }

    /// Whether the document exists, and whether its array holds `value`.
    async fn holds(
        &self,
        session: Option<&mut ClientSession>,
        side: Side,
        id: &Bson,
        value: &Bson,
    ) -> Result<(bool, bool)> {
        holds(&self.db, session, side, id, value).await
    }
}

/// `$addToSet` of `value` to the array of `side` in the document `id`, if
/// the array has room or already holds it, stamped as the side's model
/// stamps its updates: [`Error::LinkFull`] when it is full,
/// [`Error::NotFound`] when the document is missing.
pub(crate) async fn add_to(
    db: &Database,
    mut session: Option<&mut ClientSession>,
    side: Side,
    id: &Bson,
    value: &Bson,
) -> Result<()> {
    let room = match side.room_for(1) {
        None => doc! { side.field: value.clone() },
        Some(room) => doc! { "$or": [ { side.field: value.clone() }, room ] },
    };
    let mut filter = doc! { "_id": id.clone() };
    filter.extend(room);
    let coll = db.collection::<BsonDocument>(side.collection);
    let mut update = doc! { "$addToSet": { side.field: value.clone() } };
    (side.stamp)(&mut update, false)?;
    let r = with_session!(coll.update_one(filter, update), session.as_deref_mut())
        .map_err(|e| Error::from_server(e, "link in", side.collection))?;
    if r.matched_count > 0 {
        return Ok(());
    }
    let exists = with_session!(
        coll.find_one(doc! { "_id": id.clone() })
            .projection(doc! { "_id": 1 }),
        session
    )
    .map_err(|e| Error::from_server(e, "find in", side.collection))?;
    Err(match exists {
        Some(_) => Error::LinkFull {
            collection: side.collection,
            id: id_text(id),
            field: side.field,
            max: side.max,
        },
        None => Error::NotFound {
            collection: side.collection,
            id: id_text(id),
        },
    })
}

/// `$pull` of `value` from the array of `side` in the document `id`,
/// stamped as the side's model stamps its updates.
pub(crate) async fn pull_from(
    db: &Database,
    session: Option<&mut ClientSession>,
    side: Side,
    id: &Bson,
    value: &Bson,
) -> Result<()> {
    let coll = db.collection::<BsonDocument>(side.collection);
    let mut update = doc! { "$pull": { side.field: value.clone() } };
    (side.stamp)(&mut update, false)?;
    with_session!(coll.update_one(doc! { "_id": id.clone() }, update), session)
        .map_err(|e| Error::from_server(e, "unlink in", side.collection))?;
    Ok(())
}

/// Whether the document `id` of `side` exists, and whether its array
/// holds `value`.
pub(crate) async fn holds(
    db: &Database,
    session: Option<&mut ClientSession>,
    side: Side,
    id: &Bson,
    value: &Bson,
) -> Result<(bool, bool)> {
    let found = with_session!(
        db.collection::<BsonDocument>(side.collection)
            .find_one(doc! { "_id": id.clone() })
            .projection(doc! { side.field: 1 }),
        session
    )
    .map_err(|e| Error::from_server(e, "find in", side.collection))?;
    Ok(match found {
        None => (false, false),
        Some(doc) => (
            true,
            doc.get_array(side.field)
                .map(|a| a.contains(value))
                .unwrap_or(false),
        ),
    })
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Link,
    Unlink,
}

/// `(_id, ids)` of every document of a side matching `filter` (all by default).
async fn read_arrays(
    coll: Collection<BsonDocument>,
    side: Side,
    filter: Option<BsonDocument>,
    session: Option<&mut ClientSession>,
) -> Result<Vec<(Bson, Vec<Bson>)>> {
    let action = coll
        .find(filter.unwrap_or_default())
        .projection(doc! { side.field: 1 });
    let docs = crate::exec::cursor::collect(action, session)
        .await
        .map_err(|e| Error::from_server(e, "read links of", side.collection))?;
    Ok(docs
        .into_iter()
        .map(|mut d| {
            let id = d.remove("_id").unwrap_or(Bson::Null);
            let values = match d.remove(side.field) {
                Some(Bson::Array(a)) if side.field != "_id" => a,
                _ => Vec::new(),
            };
            (id, values)
        })
        .collect())
}

fn over_max(docs: &[(Bson, Vec<Bson>)], side: Side, report: &mut VerifyReport) {
    for (id, values) in docs {
        if values.len() > side.max as usize {
            report.over_max.push(OverMax {
                collection: side.collection,
                id: id.clone(),
                field: side.field,
                len: values.len(),
                max: side.max,
            });
        }
    }
}

/// Reads both sides of a link (`right`: the inverse array of a two-sided
/// one, `None` for a one-sided link into `right_collection`) and reports
/// the edges not recorded by both sides, and the arrays over their max.
pub(crate) async fn verify_sides(
    db: &Database,
    left: Side,
    right: Option<Side>,
    right_collection: &'static str,
    mut session: Option<&mut ClientSession>,
) -> Result<VerifyReport> {
    let lefts = read_arrays(
        db.collection(left.collection),
        left,
        None,
        session.as_deref_mut(),
    )
    .await?;
    let mut report = VerifyReport::default();
    over_max(&lefts, left, &mut report);

    // Every right id the left side mentions, and which lefts mention it.
    let mut forward: HashSet<(String, String)> = HashSet::new();
    let mut right_ids: HashMap<String, Bson> = HashMap::new();
    for (lid, values) in &lefts {
        for r in values {
            forward.insert((key(lid), key(r)));
            right_ids.insert(key(r), r.clone());
        }
    }
    let two_sided = right.is_some();
    let rights = match right {
        Some(side) => {
            read_arrays(
                db.collection(side.collection),
                side,
                None,
                session.as_deref_mut(),
            )
            .await?
        }
        None => {
            // One-sided: only which of the mentioned rights exist.
            let ids: Vec<Bson> = right_ids.values().cloned().collect();
            let side = Side {
                collection: right_collection,
                field: "_id",
                max: 0,
                stamp: Side::no_stamp,
            };
            read_arrays(
                db.collection(right_collection),
                side,
                Some(doc! { "_id": { "$in": ids } }),
                session,
            )
            .await?
        }
    };
    if let Some(side) = right {
        over_max(&rights, side, &mut report);
    }
    let left_exists: HashSet<String> = lefts.iter().map(|(id, _)| key(id)).collect();
    let right_exists: HashSet<String> = rights.iter().map(|(id, _)| key(id)).collect();
    let mut backward: HashSet<(String, String)> = HashSet::new();
    if two_sided {
        for (rid, values) in &rights {
            for l in values {
                backward.insert((key(l), key(rid)));
                let edge = (key(l), key(rid));
                if !forward.contains(&edge) {
                    let kind = if left_exists.contains(&edge.0) {
                        AsymmetryKind::MissingOnLeft
                    } else {
                        AsymmetryKind::LeftMissing
                    };
                    report.asymmetric.push(Asymmetry {
                        left: l.clone(),
                        right: rid.clone(),
                        kind,
                    });
                }
            }
        }
    }
    for (lid, values) in &lefts {
        for r in values {
            let edge = (key(lid), key(r));
            let kind = if !right_exists.contains(&edge.1) {
                AsymmetryKind::RightMissing
            } else if two_sided && !backward.contains(&edge) {
                AsymmetryKind::MissingOnRight
            } else {
                continue;
            };
            report.asymmetric.push(Asymmetry {
                left: lid.clone(),
                right: r.clone(),
                kind,
            });
        }
    }
    report.edges = forward.union(&backward).count();
    Ok(report)
}
