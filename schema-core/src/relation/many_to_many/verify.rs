//! Checking a link: [`Links::verify`] reads both sides (in one transaction
//! when two-sided) and reports the edges that only one side records, the
//! ids of missing documents, and the arrays over their max.

use std::collections::{HashMap, HashSet};

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Collection, Database};

use super::report::{Asymmetry, AsymmetryKind, OverMax, VerifyReport};
use super::side::Side;
use super::Links;
use crate::error::{Error, Result};
use crate::exec::action::Action;
use crate::model::codec::value_key as key;
use crate::model::Document;
use crate::txn;

impl<M: Document, C, R: Document> Links<M, C, R> {
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
    pub(super) async fn verify_in(
        &self,
        session: Option<&mut ClientSession>,
    ) -> Result<VerifyReport> {
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
