//! Plan summaries: what the server did for a query, in one line.
//!
//! [`explain_find`] runs `explain` on a `find` with
//! `verbosity: "executionStats"` and walks the winning plan through its
//! `inputStage`s, so a page of a user's posts reads
//! `LIMIT > FETCH > IXSCAN(authorId_1_at_-1__id_-1)  returned=10 keys=10 docs=10`
//! (with ` finds=2` when it sums up two queries).

use std::fmt;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::Database;

use crate::error::{Error, Result};

/// What the server's plan for one query was, and what it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlanSummary {
    /// The winning plan's stages from the root down, e.g.
    /// `["LIMIT", "FETCH", "IXSCAN(authorId_1_at_-1__id_-1)"]`.
    pub stages: Vec<String>,
    /// Documents returned (`executionStats.nReturned`).
    pub returned: u64,
    /// Index keys read (`executionStats.totalKeysExamined`).
    pub keys_examined: u64,
    /// Documents read (`executionStats.totalDocsExamined`).
    pub docs_examined: u64,
    /// How many queries this sums up: 1, or more after [`then`](Self::then).
    pub finds: u64,
}

impl PlanSummary {
    /// The stages joined with ` > `.
    pub fn shape(&self) -> String {
        self.stages.join(" > ")
    }

    /// Whether some stage is a collection scan.
    pub fn is_collscan(&self) -> bool {
        self.stages.iter().any(|s| s == "COLLSCAN")
    }

    /// Whether the plan sorts in memory (a `SORT` stage) rather than in index order.
    pub fn sorts_in_memory(&self) -> bool {
        self.stages.iter().any(|s| s.starts_with("SORT"))
    }

    /// This plan followed by `next` (a page that takes two finds): the
    /// counts summed, the stages kept when both plans have the same ones,
    /// else both chains joined by a `+` stage.
    pub fn then(mut self, next: PlanSummary) -> PlanSummary {
        if self.stages != next.stages {
            self.stages.push("+".to_owned());
            self.stages.extend(next.stages);
        }
        self.returned += next.returned;
        self.keys_examined += next.keys_examined;
        self.docs_examined += next.docs_examined;
        self.finds += next.finds;
        self
    }

    /// Reads a summary from the reply of `explain` with `executionStats`.
    ///
    /// Tolerates the `winningPlan.queryPlan` nesting of newer servers; a
    /// stage with several inputs (`inputStages`) contributes its first.
    pub fn from_explain(reply: &BsonDocument) -> Result<Self> {
        let planner = reply
            .get_document("queryPlanner")
            .map_err(|_| malformed("no `queryPlanner`"))?;
        let mut plan = planner
            .get_document("winningPlan")
            .map_err(|_| malformed("no `queryPlanner.winningPlan`"))?;
        if let Ok(inner) = plan.get_document("queryPlan") {
            plan = inner;
        }
        let mut stages = Vec::new();
        let mut node = Some(plan);
        while let Some(stage) = node {
            let name = stage.get_str("stage").unwrap_or("?");
            match stage.get_str("indexName") {
                Ok(index) => stages.push(format!("{name}({index})")),
                Err(_) => stages.push(name.to_owned()),
            }
            node = stage.get_document("inputStage").ok().or_else(|| {
                stage
                    .get_array("inputStages")
                    .ok()
                    .and_then(|a| a.first())
                    .and_then(Bson::as_document)
            });
        }
        let stats = reply.get_document("executionStats").map_err(|_| {
            malformed("no `executionStats` (explain needs `executionStats` verbosity)")
        })?;
        Ok(PlanSummary {
            stages,
            returned: crate::exec::reply::count(stats, "nReturned"),
            keys_examined: crate::exec::reply::count(stats, "totalKeysExamined"),
            docs_examined: crate::exec::reply::count(stats, "totalDocsExamined"),
            finds: 1,
        })
    }
}

impl PlanSummary {
    /// Reads a summary from the reply of `explain` (`executionStats`) on an
    /// `aggregate`: the plan of its leading stages, which the server runs
    /// as a query (at the top of the reply when the whole pipeline is
    /// that query, else in the first stage's `$cursor`).
    pub fn from_aggregate_explain(reply: &BsonDocument) -> Result<Self> {
        if reply.contains_key("queryPlanner") {
            return Self::from_explain(reply);
        }
        let cursor = reply
            .get_array("stages")
            .ok()
            .and_then(|stages| stages.first())
            .and_then(Bson::as_document)
            .and_then(|first| first.get_document("$cursor").ok())
            .ok_or_else(|| malformed("no `queryPlanner` nor `stages[0].$cursor`"))?;
        if cursor.contains_key("executionStats") {
            return Self::from_explain(cursor);
        }
        // Some servers keep the counts beside the stages.
        let mut merged = cursor.clone();
        if let Ok(stats) = reply.get_document("executionStats") {
            merged.insert("executionStats", stats.clone());
        }
        Self::from_explain(&merged)
    }
}

impl fmt::Display for PlanSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}  returned={} keys={} docs={}",
            self.shape(),
            self.returned,
            self.keys_examined,
            self.docs_examined
        )?;
        if self.finds > 1 {
            write!(f, " finds={}", self.finds)?;
        }
        Ok(())
    }
}

fn malformed(what: &str) -> Error {
    Error::Model(format!("unexpected explain reply: {what}"))
}

/// A `find` to explain: the same fields the command takes.
#[derive(Debug, Clone, Default)]
pub struct FindShape {
    /// The filter.
    pub filter: BsonDocument,
    /// The sort, if any.
    pub sort: Option<BsonDocument>,
    /// The limit, if any.
    pub limit: Option<i64>,
    /// The projection, if any.
    pub projection: Option<BsonDocument>,
    /// An index hint: the index's key document, or its name as a string.
    pub hint: Option<Bson>,
    /// The collation, if any (`{locale, strength}`).
    pub collation: Option<BsonDocument>,
}

impl FindShape {
    /// The `find` command document for `collection`.
    pub fn command(&self, collection: &str) -> BsonDocument {
        let mut find = doc! { "find": collection, "filter": self.filter.clone() };
        if let Some(sort) = &self.sort {
            find.insert("sort", sort.clone());
        }
        if let Some(projection) = &self.projection {
            find.insert("projection", projection.clone());
        }
        if let Some(limit) = self.limit {
            find.insert("limit", limit);
        }
        if let Some(hint) = &self.hint {
            find.insert("hint", hint.clone());
        }
        if let Some(collation) = &self.collation {
            find.insert("collation", collation.clone());
        }
        find
    }
}

/// Runs `explain` (`executionStats`) on a `find` and summarizes the plan.
pub async fn explain_find(
    db: &Database,
    collection: &str,
    shape: &FindShape,
) -> Result<PlanSummary> {
    let reply = db
        .run_command(doc! {
            "explain": shape.command(collection),
            "verbosity": "executionStats",
        })
        .await
        .map_err(|e| Error::from_server(e, "explain a query on", collection))?;
    PlanSummary::from_explain(&reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_the_input_stages_and_reads_the_counts() {
        let reply = doc! {
            "queryPlanner": { "winningPlan": { "queryPlan": {
                "stage": "LIMIT",
                "inputStage": { "stage": "FETCH", "inputStage": {
                    "stage": "IXSCAN", "indexName": "authorId_1_at_-1" } } } } },
            "executionStats": { "nReturned": 10, "totalKeysExamined": 10, "totalDocsExamined": 10i64 },
        };
        let summary = PlanSummary::from_explain(&reply).unwrap();
        assert_eq!(
            summary.to_string(),
            "LIMIT > FETCH > IXSCAN(authorId_1_at_-1)  returned=10 keys=10 docs=10"
        );
        assert!(!summary.sorts_in_memory());
    }

    #[test]
    fn two_finds_sum_their_counts_and_say_so() {
        let plan = |returned: u64, keys: u64, stages: &[&str]| PlanSummary {
            stages: stages.iter().map(|s| s.to_string()).collect(),
            returned,
            keys_examined: keys,
            docs_examined: returned,
            finds: 1,
        };
        let scan = ["LIMIT", "FETCH", "IXSCAN(a_1__id_1)"];
        let both = plan(4, 4, &scan).then(plan(6, 6, &scan));
        assert_eq!(
            both.to_string(),
            "LIMIT > FETCH > IXSCAN(a_1__id_1)  returned=10 keys=10 docs=10 finds=2"
        );
        let mixed = plan(1, 1, &scan).then(plan(2, 9, &["SORT", "COLLSCAN"]));
        assert_eq!(
            mixed.shape(),
            "LIMIT > FETCH > IXSCAN(a_1__id_1) > + > SORT > COLLSCAN"
        );
        assert!(mixed.is_collscan() && mixed.sorts_in_memory());
    }
}
