//! An audit of a live database against the seeds' rules, declared models or
//! not, reading only. Per collection: every array path with its length
//! distribution and the ones that look unbounded (long, or growing with the
//! documents' age) ([`arrays`]); the documents' sizes and what one small
//! update to the largest rewrites ([`sizes`]); the fields holding `_id`s of
//! another collection, whether an index is led by them, and the one-sided
//! links of id arrays kept on both sides ([`references`]); the
//! sub-documents whose keys a string beside them decides ([`polymorphic`]);
//! and, for a collection a registered model covers, the documents it cannot
//! decode or that break its bounds or validator ([`declared`]). The report
//! reads as text, Markdown or JSON ([`report`]), and never shows stored
//! data: documents are named by `_id`.
//!
//! ```no_run
//! # async fn demo(db: schema_core::mongodb::Database) -> schema_core::Result<()> {
//! use schema_core::{audit, AuditOptions};
//!
//! let report = audit(&db, &AuditOptions::default()).await?;
//! for finding in report.findings() {
//!     println!("{finding}");
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Each collection is read once, through `$sample` (1,000 documents by
//! default, [`AuditOptions::sample`]) or whole ([`AuditOptions::full_scan`]);
//! what is kept of it is bounded whatever its size (a reservoir of at most
//! [`RESERVOIR`] lengths per array path, [`REFERENCE_SAMPLE`] distinct
//! values per field, [`LINKS_KEPT`] links per id array, 10,000 distinct
//! paths followed per collection: the fields of a collection with more, as
//! one keyed by ids, are left out past them). Each document is walked once
//! over its bytes, on a thread of the audit's own while the next batch is
//! read. Then the reference
//! candidates are looked up (one `find` by `_id` per candidate and target)
//! and the declared models' validators counted.

mod arrays;
mod declared;
mod elements;
mod encrypted;
mod found;
mod options;
mod paths;
mod polymorphic;
mod read;
mod references;
mod report;
mod scan;
mod sizes;
#[cfg(test)]
mod walk_tests;

pub use arrays::{ArrayAudit, Growth, GROWING_MIN, GROWING_RHO, RESERVOIR};
pub use declared::{DeclaredAudit, Failing};
pub use encrypted::EncryptedAudit;
pub use found::{Audit, CollectionAudit};
pub use options::AuditOptions;
pub use polymorphic::{PolymorphicAudit, Variant, TAG_VALUES};
pub use references::{OneSided, ReferenceAudit, LINKS_KEPT, REFERENCE_FOUND, REFERENCE_SAMPLE};
pub use sizes::{SizeAudit, HUGE, LARGE};

use mongodb::Database;

use super::sample;
use crate::error::{Error, Result};
use crate::setup::schema::Schema;
use declared::Checked;
use scan::Scan;

/// Where an audit is, for a progress bar or a log line.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AuditProgress<'a> {
    /// What it is doing.
    pub stage: AuditStage,
    /// The collection (empty while looking references up).
    pub collection: &'a str,
    /// Its number, from 1.
    pub number: usize,
    /// How many collections there are.
    pub of: usize,
    /// Documents read from it so far.
    pub read: u64,
    /// How many it expects to read (the sample's size, or the collection's
    /// estimated count on a full scan).
    pub expected: u64,
}

/// The stages of an audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditStage {
    /// Reading a collection (reported at its start and every 10,000
    /// documents).
    Reading,
    /// A collection read.
    Read,
    /// Looking up the reference candidates of every collection.
    References,
    /// Counting the documents read that fail a declared model's validator.
    Validator,
}

/// The registered model of `collection` that declares an index led by
/// `path` (a reference's, an id array's, an `index(..)`), by name.
fn declaring(schema: &Schema, collection: &str, path: &str) -> Option<String> {
    schema
        .models()
        .iter()
        .filter(|m| m.collection == collection)
        .find(|m| {
            m.indexes
                .iter()
                .any(|i| i.keys.first().is_some_and(|(k, _)| k == path))
        })
        .map(|m| m.name.to_owned())
}

/// Audits every collection of `db`, no model declared: reads only.
pub async fn audit(db: &Database, options: &AuditOptions) -> Result<Audit> {
    audit_with(db, &Schema::new(), options, |_| {}).await
}

/// Audits every collection of `db` (reads only), checking the documents of
/// each collection a model of `schema` covers against the model
/// ([`CollectionAudit::declared`]), and calling `progress` as it goes.
pub async fn audit_with(
    db: &Database,
    schema: &Schema,
    options: &AuditOptions,
    mut progress: impl FnMut(&AuditProgress<'_>) + Send,
) -> Result<Audit> {
    let names = sample::collections(db).await?;
    let of = names.len();
    let mut read = Vec::with_capacity(of);
    for (at, name) in names.iter().enumerate() {
        let refused = |e| Error::from_server(e, "read", name);
        let checked = schema
            .models()
            .iter()
            .find(|m| m.collection == name.as_str())
            .map(|m| Checked::new(m, schema.stored_check(name), options.full_scan));
        let scan = Scan::new(name, checked);
        let expected = if options.full_scan {
            db.collection::<bson::Document>(name)
                .estimated_document_count()
                .await
                .map_err(refused)?
        } else {
            u64::from(options.sample.max(1))
        };
        let mut report = |stage, read| {
            progress(&AuditProgress {
                stage,
                collection: name,
                number: at + 1,
                of,
                read,
                expected,
            })
        };
        report(AuditStage::Reading, 0);
        let mut scan =
            read::collection(db, name, options, scan, |n| report(AuditStage::Reading, n)).await?;
        report(AuditStage::Read, scan.read);
        let audit = scan.audit(options);
        read.push((scan, audit));
    }
    progress(&AuditProgress {
        stage: AuditStage::References,
        collection: "",
        number: of,
        of,
        read: 0,
        expected: 0,
    });
    let (scans, mut collections): (Vec<Scan>, Vec<CollectionAudit>) = read.into_iter().unzip();
    let kept: Vec<references::Read<'_>> = scans
        .iter()
        .map(|s| (s.name.as_str(), &s.ids, &s.candidates))
        .collect();
    let references = references::resolve(db, &kept).await?;
    drop(kept);
    for (at, ((scan, collection), found)) in scans
        .into_iter()
        .zip(&mut collections)
        .zip(references)
        .enumerate()
    {
        collection.references = found;
        for r in &mut collection.references {
            r.declared = declaring(schema, &r.collection, &r.path);
        }
        if let Some(checked) = scan.checked {
            progress(&AuditProgress {
                stage: AuditStage::Validator,
                collection: &collection.name,
                number: at + 1,
                of,
                read: collection.read,
                expected: collection.read,
            });
            collection.declared = Some(checked.audit(db, &collection.name).await?);
        }
    }
    Ok(Audit { collections })
}
