//! The audit's report: its findings as sentences, and the whole report as
//! text (`Display`), Markdown ([`Audit::to_markdown`]) or JSON
//! ([`Audit::to_json`]). None of them shows stored data: documents are
//! named by `_id`, fields by path, and the only values shown are the tags
//! of polymorphic sub-documents.

mod json;
mod markdown;
mod text;

use super::found::Audit;
use super::sizes::megabytes;

impl Audit {
    /// Every finding, a sentence each with what to do: an array that looks
    /// unbounded, a document over 8 MiB, a reference no index is led by or
    /// with one-sided links, documents a declared model refuses.
    pub fn findings(&self) -> Vec<String> {
        findings(self)
    }

    /// Whether there is any finding (the schema command's `audit` exits
    /// with 1 then).
    pub fn has_findings(&self) -> bool {
        !self.findings().is_empty()
    }
}

/// Every finding of `audit`, in collection order.
fn findings(audit: &Audit) -> Vec<String> {
    let mut found = Vec::new();
    for c in &audit.collections {
        for a in c.arrays.iter().filter(|a| a.unbounded.is_some()) {
            found.push(format!("{a}"));
        }
        if c.sizes.over_8mib > 0 {
            found.push(format!(
                "{}: {} document{} over 8 MiB, half way to the 16 MiB limit (largest: _id {}, {}); \
                 each small update rewrites it whole",
                c.name,
                c.sizes.over_8mib,
                if c.sizes.over_8mib == 1 { "" } else { "s" },
                c.sizes.largest.first().map_or("?", |(id, _)| id.as_str()),
                megabytes(c.sizes.max),
            ));
        }
        for r in c.references.iter().filter(|r| r.is_finding()) {
            found.push(format!("{r}"));
        }
        for e in c.encrypted.iter().filter(|e| e.is_finding()) {
            found.push(format!("{e}"));
        }
        if let Some(d) = c.declared.as_ref().filter(|d| d.is_finding()) {
            found.push(format!("{d}"));
        }
    }
    found
}
