//! A page of documents joined with the document each references, in one
//! `aggregate`: the page's own `find` as its first stages (planned as one
//! query, `LIMIT > FETCH > IXSCAN` on the index the guard found), then a
//! `$lookup` on the referenced collection's `_id`. The pipeline and why
//! it has this form: [`relation::join`](crate::relation::join).

use bson::{doc, Bson, Document as BsonDocument, RawDocument, RawDocumentBuf};
use mongodb::{ClientSession, Collection};

use crate::error::{Error, Result};

/// Where the joined child travels in each result document.
pub(crate) const CHILD: &str = "child";
/// Where its parent travels (an array of at most one document).
pub(crate) const PARENT: &str = "parent";

/// The `$lookup` of a join: the referenced collection and the reference.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lookup {
    /// The parents' collection.
    pub(crate) from: &'static str,
    /// The reference's stored name in the child.
    pub(crate) local: &'static str,
}

/// One step of a page: what its `find` would send.
pub(crate) struct PageStep {
    pub(crate) filter: BsonDocument,
    pub(crate) sort: BsonDocument,
    pub(crate) limit: u32,
    /// The index to send as a `hint`, if any.
    pub(crate) hint: Option<BsonDocument>,
}

impl PageStep {
    /// The step of a page's `find`, limited to `limit`.
    pub(crate) fn of(shape: crate::query::explain::FindShape, limit: u32) -> PageStep {
        PageStep {
            filter: shape.filter,
            sort: shape.sort.unwrap_or_default(),
            limit,
            hint: match shape.hint {
                Some(Bson::Document(hint)) => Some(hint),
                _ => None,
            },
        }
    }
}

impl Lookup {
    /// The `aggregate` pipeline of one page step (see the module docs).
    pub(crate) fn pipeline(&self, step: PageStep) -> Vec<BsonDocument> {
        vec![
            doc! { "$match": step.filter },
            doc! { "$sort": step.sort },
            doc! { "$limit": i64::from(step.limit) },
            doc! { "$replaceRoot": { "newRoot": { CHILD: "$$ROOT" } } },
            self.stage(),
        ]
    }

    /// The `$lookup` stage.
    pub(crate) fn stage(&self) -> BsonDocument {
        doc! { "$lookup": {
            "from": self.from,
            "localField": format!("{CHILD}.{}", self.local),
            "foreignField": "_id",
            "as": PARENT,
        } }
    }

    /// Sends one page step as an `aggregate` (in `session` when there is
    /// one) and collects the joined documents.
    pub(crate) async fn run(
        &self,
        raw: &Collection<RawDocumentBuf>,
        session: Option<&mut ClientSession>,
        mut step: PageStep,
    ) -> mongodb::error::Result<Vec<RawDocumentBuf>> {
        // One more than the `$limit`: the first batch then holds the whole
        // page and the server closes the cursor (a batch of exactly the
        // page would leave it open, and cost a `getMore`).
        let (batch, hint) = (step.limit.saturating_add(1), step.hint.take());
        let mut aggregate = raw.aggregate(self.pipeline(step)).batch_size(batch);
        if let Some(hint) = hint {
            aggregate = aggregate.hint(mongodb::options::Hint::Keys(hint));
        }
        crate::exec::cursor::collect_aggregate(aggregate, session).await
    }

    /// The children of joined documents, in order.
    pub(crate) fn children<'d>(&self, docs: &'d [RawDocumentBuf]) -> Result<Vec<&'d RawDocument>> {
        docs.iter().map(|d| child_of(d)).collect()
    }
}

/// The child of one joined document.
pub(crate) fn child_of(joined: &RawDocument) -> Result<&RawDocument> {
    joined
        .get_document(CHILD)
        .map_err(|_| malformed("a joined document has no child"))
}

/// The parent of one joined document, if it exists.
pub(crate) fn parent_of(joined: &RawDocument) -> Result<Option<&RawDocument>> {
    let parents = joined
        .get_array(PARENT)
        .map_err(|_| malformed("a joined document has no parent array"))?;
    match parents.into_iter().next() {
        None => Ok(None),
        Some(Ok(parent)) => parent
            .as_document()
            .map(Some)
            .ok_or_else(|| malformed("a joined parent is not a document")),
        Some(Err(_)) => Err(malformed("a joined parent is not a document")),
    }
}

fn malformed(what: &str) -> Error {
    Error::Model(format!("unexpected aggregate reply: {what}"))
}

/// The `_id`s the children of a page reference, without repeats and
/// without nulls (what the `$lookup` looks up), for explaining its side.
pub(crate) fn referenced(children: &[&RawDocument], local: &str) -> Vec<Bson> {
    let mut ids: Vec<Bson> = Vec::new();
    for child in children {
        let id = crate::query::keyset::raw_path(child, local);
        if !matches!(id, Bson::Null) && !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// What the server does for a join (see
/// [`WithParents::explain`](crate::WithParents::explain)): the
/// plan of the children's side (the `aggregate`'s first stages, planned as
/// one query), the plan of the parents' side (the `$lookup`'s equality on
/// `_id`, explained as the `find` it amounts to, `{_id: {$in: <the page's
/// references>}}`, since a server's `aggregate` explain need not show the
/// inner plan: the test server's does not), and the `$lookup` stage as the
/// server's explain printed it (MongoDB 5.0 and later add
/// `indexesUsed`, `totalKeysExamined` and `collectionScans` there).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JoinPlan {
    /// The children's side.
    pub children: crate::query::explain::PlanSummary,
    /// The parents' side: one `_id` lookup per distinct reference.
    pub parents: crate::query::explain::PlanSummary,
    /// The `$lookup` stage of the aggregate's explain, when it has one.
    pub lookup: Option<BsonDocument>,
}

impl Lookup {
    /// Explains one page step (see [`JoinPlan`]): the aggregate's explain,
    /// then the step itself to learn the references, then the parents'
    /// `find` explained.
    pub(crate) async fn explain(
        &self,
        db: &mongodb::Database,
        collection: &'static str,
        step: PageStep,
    ) -> Result<JoinPlan> {
        let pipeline = self.pipeline(PageStep {
            filter: step.filter.clone(),
            sort: step.sort.clone(),
            limit: step.limit,
            hint: step.hint.clone(),
        });
        let reply = db
            .run_command(doc! {
                "explain": { "aggregate": collection, "pipeline": pipeline, "cursor": {} },
                "verbosity": "executionStats",
            })
            .await
            .map_err(|e| Error::from_server(e, "explain a join on", collection))?;
        let (children, lookup) = match reply.get_array("stages") {
            Ok(stages) => {
                let first = stages
                    .first()
                    .and_then(Bson::as_document)
                    .and_then(|s| s.get_document("$cursor").ok())
                    .ok_or_else(|| malformed("an explained join has no $cursor stage"))?;
                let lookup = stages
                    .iter()
                    .filter_map(Bson::as_document)
                    .find(|s| s.contains_key("$lookup"))
                    .cloned();
                (
                    crate::query::explain::PlanSummary::from_explain(first)?,
                    lookup,
                )
            }
            // A plan that runs the join itself (MongoDB's `EQ_LOOKUP`).
            Err(_) => (
                crate::query::explain::PlanSummary::from_explain(&reply)?,
                None,
            ),
        };
        let raw = db.collection::<RawDocumentBuf>(collection);
        let docs = self
            .run(&raw, None, step)
            .await
            .map_err(|e| Error::from_server(e, "join in", collection))?;
        let ids = referenced(&self.children(&docs)?, self.local);
        let shape = crate::query::explain::FindShape {
            filter: doc! { "_id": { "$in": ids } },
            ..Default::default()
        };
        let parents = crate::query::explain::explain_find(db, self.from, &shape).await?;
        Ok(JoinPlan {
            children,
            parents,
            lookup,
        })
    }
}
