//! The report as JSON: the findings, then every collection's audit with
//! its fields named as in Rust.

use serde::Serialize;

use super::super::found::{Audit, CollectionAudit};

#[derive(Serialize)]
struct Json<'a> {
    has_findings: bool,
    findings: Vec<String>,
    collections: &'a [CollectionAudit],
}

impl Audit {
    /// The report as JSON (pretty-printed): `has_findings`, `findings` (the
    /// sentences of [`findings`](Self::findings)) and `collections`, each
    /// with the fields of [`CollectionAudit`]. It holds paths, counts and
    /// `_id`s, never stored values (but the tags of
    /// [`polymorphic`](CollectionAudit::polymorphic) sub-documents).
    pub fn to_json(&self) -> String {
        let findings = self.findings();
        let json = Json {
            has_findings: !findings.is_empty(),
            findings,
            collections: &self.collections,
        };
        // Strings, numbers, booleans and lists of them: nothing that can
        // fail to serialize.
        serde_json::to_string_pretty(&json).unwrap_or_default()
    }
}
