//! Repairing a link: [`Links::repair`] completes the edges one side lacks
//! where it can and removes the lone halves it cannot, each edge re-read
//! and fixed in a transaction of its own.

use bson::{doc, Bson};
use mongodb::ClientSession;

use super::report::{Asymmetry, RepairReport};
use super::side::{holds, Side};
use super::Links;
use crate::error::{Error, Result};
use crate::exec::action::Action;
use crate::model::Document;
use crate::txn::{self, with_session};

impl<M: Document, C, R: Document> Links<M, C, R> {
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
