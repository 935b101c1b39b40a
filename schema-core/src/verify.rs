//! Every model's links and copies checked at once:
//! [`Schema::verify`] runs, for each `#[many_to_many]` field of the models
//! it holds, what [`Links::verify`](crate::Links::verify) runs (a two-sided
//! link once, from the side named first), and for each model with `#[copy]`
//! fields what [`Copies::verify`](crate::relation::Copies::verify) runs. It writes
//! nothing.
//!
//! Each check reads its collections one after the other, outside any
//! transaction: a link or a copy written meanwhile may be reported. Run it
//! while writers are idle, or use `Links::verify` in a session for one
//! link read in a transaction.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use schema_core::Schema;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[serde(rename_all = "camelCase")]
//! # #[document(collection = "students")]
//! # struct Student {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 50)]
//! #     course_ids: Vec<String>,
//! # }
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[serde(rename_all = "camelCase")]
//! # #[document(collection = "courses")]
//! # struct Course {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     #[many_to_many(two_sided, to = Student, inverse = course_ids, max = 500)]
//! #     student_ids: Vec<String>,
//! # }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let schema = Schema::new().with::<Student>().with::<Course>();
//! let checked = schema.verify(&db).await?;
//! if !checked.is_consistent() {
//!     eprintln!("{checked}");
//! }
//! # Ok(())
//! # }
//! ```

use std::fmt;

use mongodb::Database;

use crate::error::Result;
use crate::model::Relation;
use crate::relation::copies::CopyReader;
use crate::relation::many_to_many::{verify_sides, Side};
use crate::relation::{CopyReport, VerifyReport};
use crate::schema::{ModelInfo, Schema};

/// What [`Schema::verify`] found.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SchemaCheck {
    /// One per link checked.
    pub links: Vec<LinkCheck>,
    /// One per model holding copies.
    pub copies: Vec<CopyCheck>,
}

/// One link's check.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LinkCheck {
    /// The collection of the side that declares it.
    pub collection: &'static str,
    /// The stored name of its id array.
    pub field: &'static str,
    /// The collection it links to.
    pub target: &'static str,
    /// The stored name of the target's inverse array (two-sided only).
    pub inverse: Option<&'static str>,
    /// What [`Links::verify`](crate::Links::verify) reports of it.
    pub report: VerifyReport,
}

/// One holder collection's copies checked.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CopyCheck {
    /// The holders' collection.
    pub collection: &'static str,
    /// What [`Copies::verify`](crate::relation::Copies::verify) reports of it.
    pub report: CopyReport,
}

impl SchemaCheck {
    /// No asymmetric edge, no array over its max, no stale copy.
    pub fn is_consistent(&self) -> bool {
        self.links.iter().all(|l| l.report.is_consistent())
            && self.copies.iter().all(|c| c.report.is_consistent())
    }
}

impl Schema {
    /// Checks the links and copies of every model (see the
    /// [module docs](crate::verify)): reads only.
    pub async fn verify(&self, db: &Database) -> Result<SchemaCheck> {
        let mut check = SchemaCheck::default();
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for model in self.models() {
            for relation in &model.relations {
                let Relation::ManyToMany {
                    stored,
                    target,
                    inverse,
                    max,
                    ..
                } = *relation
                else {
                    continue;
                };
                if seen.contains(&(model.collection, stored)) {
                    continue;
                }
                let left = Side {
                    collection: model.collection,
                    field: stored,
                    max,
                    stamp: Side::no_stamp,
                };
                let right = inverse.map(|field| {
                    seen.push((target, field));
                    Side {
                        collection: target,
                        field,
                        max: inverse_max(self.models(), target, field),
                        stamp: Side::no_stamp,
                    }
                });
                let report = verify_sides(db, left, right, target, None).await?;
                check.links.push(LinkCheck {
                    collection: model.collection,
                    field: stored,
                    target,
                    inverse,
                    report,
                });
            }
            if !model.copies.is_empty() {
                let reader = CopyReader {
                    db,
                    holder: model.collection,
                    specs: &model.copies,
                };
                check.copies.push(CopyCheck {
                    collection: model.collection,
                    report: reader.report(None).await?,
                });
            }
        }
        Ok(check)
    }
}

/// The max of the inverse array `field` of `target`, as its model declares
/// it; no max (nothing reported over it) when the schema does not hold
/// that model.
fn inverse_max(models: &[ModelInfo], target: &str, field: &str) -> u32 {
    models
        .iter()
        .filter(|m| m.collection == target)
        .flat_map(|m| &m.relations)
        .find_map(|r| match *r {
            Relation::ManyToMany { stored, max, .. } if stored == field => Some(max),
            _ => None,
        })
        .unwrap_or(u32::MAX)
}

/// How many faults of one kind the text lists (the report holds them all).
const LISTED: usize = 20;

/// The line that counts the faults of a kind not listed.
fn more(f: &mut fmt::Formatter<'_>, found: usize) -> fmt::Result {
    match found.checked_sub(LISTED) {
        Some(left) if left > 0 => writeln!(f, "  ... and {left} more"),
        _ => Ok(()),
    }
}

/// The report as text: a line per link and per holder collection, then up
/// to 20 of each kind of fault it found.
impl fmt::Display for SchemaCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for link in &self.links {
            let r = &link.report;
            let arrow = if link.inverse.is_some() { "<->" } else { "->" };
            let verdict = if r.is_consistent() { "ok" } else { "FAILED" };
            write!(
                f,
                "links {}.{} {arrow} {}",
                link.collection, link.field, link.target
            )?;
            if let Some(inverse) = link.inverse {
                write!(f, ".{inverse}")?;
            }
            writeln!(
                f,
                ": {verdict} ({} edges, {} asymmetric, {} over max)",
                r.edges,
                r.asymmetric.len(),
                r.over_max.len()
            )?;
            for a in r.asymmetric.iter().take(LISTED) {
                writeln!(f, "  {} -> {}: {:?}", a.left, a.right, a.kind)?;
            }
            more(f, r.asymmetric.len())?;
            for o in r.over_max.iter().take(LISTED) {
                writeln!(
                    f,
                    "  {}.{} of {}: {} ids, max {}",
                    o.collection, o.field, o.id, o.len, o.max
                )?;
            }
            more(f, r.over_max.len())?;
        }
        for copy in &self.copies {
            let r = &copy.report;
            let verdict = if r.is_consistent() { "ok" } else { "FAILED" };
            writeln!(
                f,
                "copies in {}: {verdict} ({} holders, {} out of sync)",
                copy.collection,
                r.holders,
                r.out_of_sync.len()
            )?;
            for (id, field) in r.out_of_sync.iter().take(LISTED) {
                writeln!(f, "  {id}: {field}")?;
            }
            more(f, r.out_of_sync.len())?;
        }
        if self.links.is_empty() && self.copies.is_empty() {
            writeln!(f, "no links or copies to check")?;
        }
        Ok(())
    }
}
