//! What [`Schema::repair`] may do ([`RepairOptions`]) and did
//! ([`SchemaRepair`]: a [`LinkRepair`] per link, a [`LinkChange`] per id
//! added or removed), the repair itself, and the report as text.

use std::fmt;

use bson::{doc, Bson, Document as BsonDocument};
use mongodb::{ClientSession, Database};

use super::check::over_max_line;
use super::links::SchemaLink;
use crate::error::{id_text, Error, Result};
use crate::relation::many_to_many::{add_to, holds, pull_from, verify_sides, Side};
use crate::relation::{Asymmetry, OverMax};
use crate::setup::schema::Schema;
use crate::txn::{self, TxnConfig, TxnState};

impl Schema {
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
    /// copies are repaired by [`Copies::repair`](crate::Copies::repair).
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
