//! What [`Schema::verify`] finds ([`SchemaCheck`]: a [`LinkCheck`] per link,
//! a [`CopyCheck`] per model holding copies, a [`ClearCheck`] per encrypted
//! field), the check itself, and the report as text.

use std::fmt;

use mongodb::Database;

use crate::error::{id_text, Result};
use crate::relation::copies::CopyReader;
use crate::relation::many_to_many::verify_sides;
use crate::relation::{Asymmetry, AsymmetryKind, CopyReport, OverMax, VerifyReport};
use crate::setup::schema::Schema;

use super::clear::{self, ClearCheck};

/// What [`Schema::verify`] found.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SchemaCheck {
    /// One per link checked.
    pub links: Vec<LinkCheck>,
    /// One per model holding copies.
    pub copies: Vec<CopyCheck>,
    /// One per encrypted field (`#[encrypt(..)]`) of every model: the
    /// documents holding it in clear.
    pub encrypted: Vec<ClearCheck>,
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
    /// What [`Copies::verify`](crate::Copies::verify) reports of it.
    pub report: CopyReport,
}

impl SchemaCheck {
    /// No asymmetric edge, no array over its max, no stale copy, no
    /// encrypted field stored in clear.
    pub fn is_consistent(&self) -> bool {
        self.links.iter().all(|l| l.report.is_consistent())
            && self.copies.iter().all(|c| c.report.is_consistent())
            && self.encrypted.iter().all(ClearCheck::is_consistent)
    }
}

impl Schema {
    /// Checks the links and copies of every model (see the
    /// module docs): reads only.
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
                    keys: &self.keys,
                };
                check.copies.push(CopyCheck {
                    collection: model.collection,
                    report: reader.report(None).await?,
                });
            }
            for field in &model.encrypted {
                check
                    .encrypted
                    .push(clear::check(db, model.collection, &field.path).await?);
            }
        }
        Ok(check)
    }
}

/// A line for an array over its max, ending with what to do.
pub(super) fn over_max_line(f: &mut fmt::Formatter<'_>, o: &OverMax, then: &str) -> fmt::Result {
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
        for e in &self.encrypted {
            let verdict = if e.is_consistent() { "ok" } else { "FAILED" };
            writeln!(
                f,
                "encrypted {}.{}: {verdict} ({} documents hold it, {} in clear)",
                e.collection,
                e.path,
                e.checked,
                e.in_clear.len()
            )?;
            for id in e.in_clear.iter().take(LISTED) {
                writeln!(
                    f,
                    "  `{}` {}: `{}` is stored in clear: replace the document through a repository with an encryption handle (`Repo::replace`), which encrypts it (read its values with the raw driver: the repository refuses a clear value)",
                    e.collection,
                    id_text(id),
                    e.path
                )?;
            }
            more(f, e.in_clear.len())?;
        }
        if self.links.is_empty() && self.copies.is_empty() && self.encrypted.is_empty() {
            writeln!(f, "no links, copies or encrypted fields to check")?;
        }
        Ok(())
    }
}
