//! Every model's links and copies checked at once:
//! [`Schema::verify`] runs, for each `#[many_to_many]` field of the models
//! it holds, what [`Links::verify`](crate::Links::verify) runs (a two-sided
//! link once, from the side named first), and for each model with `#[copy]`
//! fields what [`Copies::verify`](crate::relation::Copies::verify) runs. It writes
//! nothing. [`Schema::repair`] fixes what it finds in the links (the
//! schema command's `repair`).
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

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Database};

use crate::error::{id_text, Error, Result};
use crate::model::Relation;
use crate::relation::copies::CopyReader;
use crate::relation::many_to_many::{add_to, holds, pull_from, verify_sides, Side};
use crate::relation::{Asymmetry, AsymmetryKind, CopyReport, OverMax, VerifyReport};
use crate::setup::schema::{ModelInfo, Schema};
use crate::txn::{self, TxnConfig, TxnState};

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

/// One link of a schema as [`Schema::verify`] and [`Schema::repair`] see
/// it: its two sides (the right one for a two-sided link), each stamped
/// as its model stamps its updates.
struct SchemaLink {
    collection: &'static str,
    field: &'static str,
    target: &'static str,
    inverse: Option<&'static str>,
    left: Side,
    right: Option<Side>,
    /// The two models, for a transaction's messages.
    models: [&'static str; 2],
}

impl Schema {
    /// Every `#[many_to_many]` link of the models, a two-sided one once
    /// (from the side named first).
    fn links(&self) -> Vec<SchemaLink> {
        let models = self.models();
        let mut links: Vec<SchemaLink> = Vec::new();
        for model in models {
            for relation in &model.relations {
                let Relation::ManyToMany {
                    stored,
                    target,
                    inverse,
                    max,
                    stamp,
                    ..
                } = *relation
                else {
                    continue;
                };
                let seen = links.iter().any(|l| {
                    l.target == model.collection && l.inverse == Some(stored)
                        || l.collection == model.collection && l.field == stored
                });
                if seen {
                    continue;
                }
                let left = Side {
                    collection: model.collection,
                    field: stored,
                    max,
                    stamp: stamp_of(models, model.collection),
                };
                let right = inverse.map(|field| Side {
                    collection: target,
                    field,
                    max: inverse_max(models, target, field),
                    stamp: stamp.update_fn(),
                });
                let target_name = models
                    .iter()
                    .find(|m| m.collection == target)
                    .map_or(target, |m| m.name);
                links.push(SchemaLink {
                    collection: model.collection,
                    field: stored,
                    target,
                    inverse,
                    left,
                    right,
                    models: [model.name, target_name],
                });
            }
        }
        links
    }

    /// Checks the links and copies of every model (see the
    /// [module docs](crate::relation::verify)): reads only.
    pub async fn verify(&self, db: &Database) -> Result<SchemaCheck> {
        let mut check = SchemaCheck::default();
        for link in self.links() {
            let report = verify_sides(db, link.left, link.right, link.target, None).await?;
            check.links.push(LinkCheck {
                collection: link.collection,
                field: link.field,
                target: link.target,
                inverse: link.inverse,
                report,
            });
        }
        for model in self.models() {
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

    /// Fixes what [`verify`](Self::verify) finds in the links of every
    /// model: an id that one side of a two-sided link lists and the other
    /// does not is added to the other (if its array has room), and an id
    /// whose document is gone (or that the other side has no room for) is
    /// removed; a one-sided link loses its ids of missing documents. Each
    /// edge is read again and fixed in a transaction of its own (one write
    /// for a one-sided link), so a link written meanwhile is never undone;
    /// every document written is stamped with its model's version and
    /// `updated_at`, as by the link helpers. Arrays over their max are
    /// reported and left alone (which ids to drop is the caller's choice);
    /// copies are repaired by [`Copies::repair`](crate::relation::Copies::repair).
    ///
    /// With [`RepairOptions::dry_run`] it writes nothing and reports what
    /// it would change.
    pub async fn repair(&self, db: &Database, options: RepairOptions) -> Result<SchemaRepair> {
        let mut done = SchemaRepair {
            dry_run: options.dry_run,
            links: Vec::new(),
        };
        let state = TxnState::default();
        let config = TxnConfig::default();
        for link in self.links() {
            let report = verify_sides(db, link.left, link.right, link.target, None).await?;
            let mut changes = Vec::new();
            for edge in &report.asymmetric {
                let fixed = if link.right.is_some() && !options.dry_run {
                    let context = (db, &link, edge);
                    txn::transact(
                        &state,
                        &link.models,
                        db.client(),
                        None,
                        &config,
                        context,
                        |s, ctx| {
                            let (db, link, edge) = *ctx;
                            Box::pin(async move { fix_edge(db, link, edge, false, Some(s)).await })
                        },
                    )
                    .await?
                } else {
                    fix_edge(db, &link, edge, options.dry_run, None).await?
                };
                changes.extend(fixed);
            }
            done.links.push(LinkRepair {
                collection: link.collection,
                field: link.field,
                target: link.target,
                inverse: link.inverse,
                changes,
                over_max: report.over_max,
            });
        }
        Ok(done)
    }
}

/// How a model stamps its updates, as the relations that point at its
/// collection carry it (none when no model of the schema links to it).
fn stamp_of(models: &[ModelInfo], collection: &str) -> fn(&mut BsonDocument, bool) -> Result<()> {
    models
        .iter()
        .flat_map(|m| &m.relations)
        .find_map(|r| match r {
            Relation::ManyToMany { target, stamp, .. } if *target == collection => {
                Some(stamp.update_fn())
            }
            _ => None,
        })
        .unwrap_or(Side::no_stamp)
}

/// Reads one edge again and fixes it (or, `dry`, says how it would): the
/// change made, `None` when it is consistent by now.
async fn fix_edge(
    db: &Database,
    link: &SchemaLink,
    edge: &Asymmetry,
    dry: bool,
    mut session: Option<&mut ClientSession>,
) -> Result<Option<LinkChange>> {
    let left = link.left;
    let (l_exists, l_has) =
        holds(db, session.as_deref_mut(), left, &edge.left, &edge.right).await?;
    let Some(right) = link.right else {
        // One-sided: only an id of a missing document can be wrong.
        let exists = db
            .collection::<BsonDocument>(link.target)
            .find_one(doc! { "_id": edge.right.clone() })
            .projection(doc! { "_id": 1 })
            .await
            .map_err(|e| Error::from_server(e, "find in", link.target))?
            .is_some();
        if !l_has || exists {
            return Ok(None);
        }
        if !dry {
            pull_from(db, session, left, &edge.left, &edge.right).await?;
        }
        return Ok(Some(LinkChange::Removed {
            collection: left.collection,
            field: left.field,
            id: edge.left.clone(),
            value: edge.right.clone(),
            why: RemovedBecause::Missing(link.target),
        }));
    };
    let (r_exists, r_has) =
        holds(db, session.as_deref_mut(), right, &edge.right, &edge.left).await?;
    // (the side listing the id, its document, the id; the other side, its document, whether it exists)
    let (lone, lone_id, lone_value, other, other_exists) = match (l_has, r_has) {
        (true, false) => (left, &edge.left, &edge.right, right, r_exists),
        (false, true) => (right, &edge.right, &edge.left, left, l_exists),
        _ => return Ok(None),
    };
    let mut why = RemovedBecause::Missing(other.collection);
    if other_exists {
        let added = if dry {
            has_room(db, other, lone_value, lone_id).await?
        } else {
            match add_to(db, session.as_deref_mut(), other, lone_value, lone_id).await {
                Ok(()) => true,
                Err(Error::LinkFull { .. }) => false,
                Err(e) => return Err(e),
            }
        };
        if added {
            return Ok(Some(LinkChange::Added {
                collection: other.collection,
                field: other.field,
                id: lone_value.clone(),
                value: lone_id.clone(),
            }));
        }
        why = RemovedBecause::Full(other.collection, other.field, other.max);
    }
    if !dry {
        pull_from(db, session, lone, lone_id, lone_value).await?;
    }
    Ok(Some(LinkChange::Removed {
        collection: lone.collection,
        field: lone.field,
        id: lone_id.clone(),
        value: lone_value.clone(),
        why,
    }))
}

/// Whether the array of `side` in the document `id` could take `value`
/// (it holds it, or has room).
async fn has_room(db: &Database, side: Side, id: &Bson, value: &Bson) -> Result<bool> {
    let found = db
        .collection::<BsonDocument>(side.collection)
        .find_one(doc! { "_id": id.clone() })
        .projection(doc! { side.field: 1 })
        .await
        .map_err(|e| Error::from_server(e, "find in", side.collection))?;
    Ok(found
        .and_then(|d| d.get_array(side.field).ok().cloned())
        .is_none_or(|a| a.contains(value) || a.len() < side.max as usize))
}

/// What [`Schema::repair`] may do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RepairOptions {
    /// Write nothing: report what would change.
    pub dry_run: bool,
}

/// What [`Schema::repair`] changed (or, dry, would change).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SchemaRepair {
    /// Nothing was written: the changes are those it would make.
    pub dry_run: bool,
    /// One per link.
    pub links: Vec<LinkRepair>,
}

impl SchemaRepair {
    /// How many ids were added or removed (or would be).
    pub fn changed(&self) -> usize {
        self.links.iter().map(|l| l.changes.len()).sum()
    }
}

/// One link's repair.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LinkRepair {
    /// The collection of the side that declares it.
    pub collection: &'static str,
    /// The stored name of its id array.
    pub field: &'static str,
    /// The collection it links to.
    pub target: &'static str,
    /// The stored name of the target's inverse array (two-sided only).
    pub inverse: Option<&'static str>,
    /// The ids added and removed, one per edge fixed.
    pub changes: Vec<LinkChange>,
    /// Arrays over their max: left alone.
    pub over_max: Vec<OverMax>,
}

/// One id added to or removed from a link's array.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum LinkChange {
    /// `value` was added to the array `field` of the document `id` of
    /// `collection` (the other side listed it).
    Added {
        /// The collection written.
        collection: &'static str,
        /// Its id array.
        field: &'static str,
        /// The `_id` of the document written.
        id: Bson,
        /// The id added.
        value: Bson,
    },
    /// `value` was removed from the array `field` of the document `id` of
    /// `collection`.
    Removed {
        /// The collection written.
        collection: &'static str,
        /// Its id array.
        field: &'static str,
        /// The `_id` of the document written.
        id: Bson,
        /// The id removed.
        value: Bson,
        /// Why it was removed rather than completed.
        why: RemovedBecause,
    },
}

/// Why [`Schema::repair`] removed an id instead of adding the other half.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemovedBecause {
    /// The collection has no document with that id.
    Missing(&'static str),
    /// The other document's array (collection, field, max) is full.
    Full(&'static str, &'static str, u32),
}

impl fmt::Display for SchemaRepair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (add, remove) = if self.dry_run {
            ("would add", "would remove")
        } else {
            ("added", "removed")
        };
        if self.dry_run {
            writeln!(f, "dry run: nothing written")?;
        }
        for link in &self.links {
            write!(f, "links {}.{} ", link.collection, link.field)?;
            match link.inverse {
                Some(inverse) => write!(f, "<-> {}.{inverse}", link.target)?,
                None => write!(f, "-> {}", link.target)?,
            }
            match link.changes.len() {
                0 => writeln!(f, ": nothing to fix")?,
                n if self.dry_run => writeln!(f, ": {n} to fix")?,
                n => writeln!(f, ": {n} fixed")?,
            }
            for change in &link.changes {
                match change {
                    LinkChange::Added {
                        collection,
                        field,
                        id,
                        value,
                    } => writeln!(
                        f,
                        "  {add} {} to `{collection}` {} `{field}`",
                        id_text(value),
                        id_text(id)
                    )?,
                    LinkChange::Removed {
                        collection,
                        field,
                        id,
                        value,
                        why,
                    } => {
                        let value = id_text(value);
                        let why = match why {
                            RemovedBecause::Missing(other) => format!("`{other}` has no {value}"),
                            RemovedBecause::Full(other, field, max) => {
                                format!("`{other}` {value} `{field}` is full (max {max})")
                            }
                        };
                        writeln!(
                            f,
                            "  {remove} {value} from `{collection}` {} `{field}`: {why}",
                            id_text(id)
                        )?
                    }
                }
            }
            for o in &link.over_max {
                over_max_line(f, o, "left alone")?;
            }
        }
        if self.links.is_empty() {
            writeln!(f, "no links to repair")?;
        }
        Ok(())
    }
}

/// A line for an array over its max, ending with what to do.
fn over_max_line(f: &mut fmt::Formatter<'_>, o: &OverMax, then: &str) -> fmt::Result {
    writeln!(
        f,
        "  `{}` {} holds {} ids in `{}`, over its max of {}: {then} (which ids to drop is \
         yours to choose: unlink them)",
        o.collection,
        id_text(&o.id),
        o.len,
        o.field,
        o.max
    )
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

/// One edge `verify` found wrong, in the models' words: which document
/// lists which id in which field, what the other side lacks, and what
/// `repair` does about it.
fn finding(link: &LinkCheck, a: &Asymmetry) -> String {
    let (l, r) = (id_text(&a.left), id_text(&a.right));
    let (lc, lf, rc) = (link.collection, link.field, link.target);
    let rf = link.inverse.unwrap_or("?");
    match a.kind {
        AsymmetryKind::MissingOnRight => format!(
            "`{lc}` {l} lists {r} in `{lf}`, but `{rc}` {r} does not list {l} in `{rf}`: \
             `repair` adds it there"
        ),
        AsymmetryKind::MissingOnLeft => format!(
            "`{rc}` {r} lists {l} in `{rf}`, but `{lc}` {l} does not list {r} in `{lf}`: \
             `repair` adds it there"
        ),
        AsymmetryKind::RightMissing => format!(
            "`{lc}` {l} lists {r} in `{lf}`, but `{rc}` has no document {r}: `repair` \
             removes the id"
        ),
        AsymmetryKind::LeftMissing => format!(
            "`{rc}` {r} lists {l} in `{rf}`, but `{lc}` has no document {l}: `repair` \
             removes the id"
        ),
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
                writeln!(f, "  {}", finding(link, a))?;
            }
            more(f, r.asymmetric.len())?;
            for o in r.over_max.iter().take(LISTED) {
                over_max_line(f, o, "`repair` leaves it")?;
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
                writeln!(
                    f,
                    "  `{}` {id}: `{field}` differs from its source: `Copies::repair` (or \
                     `refresh` of this document) copies it again",
                    copy.collection
                )?;
            }
            more(f, r.out_of_sync.len())?;
        }
        if self.links.is_empty() && self.copies.is_empty() {
            writeln!(f, "no links or copies to check")?;
        }
        Ok(())
    }
}
