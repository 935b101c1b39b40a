//! The report as Markdown: the findings first, then a section per
//! collection with a table per part.

use std::fmt::Write;

use super::super::found::{Audit, CollectionAudit};

impl Audit {
    /// The report as Markdown, for a pull request or a wiki: a list of the
    /// findings, then per collection its sizes, arrays, references,
    /// polymorphic sub-documents and declared model as tables.
    pub fn to_markdown(&self) -> String {
        let mut md = String::from("# Audit\n\n## Findings\n\n");
        let findings = self.findings();
        if findings.is_empty() {
            md.push_str("None.\n");
        }
        for finding in findings {
            let _ = writeln!(md, "- {}", finding.replace('\n', " "));
        }
        for c in &self.collections {
            collection(&mut md, c);
        }
        md
    }
}

/// Escapes the table separator.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn collection(md: &mut String, c: &CollectionAudit) {
    let s = &c.sizes;
    let _ = write!(
        md,
        "\n## `{}`\n\n{} documents read. Sizes: max {} bytes, p99 {} bytes, {} over 2 MiB, {} over 8 MiB.\n",
        c.name, c.read, s.max, s.p99, s.over_2mib, s.over_8mib
    );
    for line in s.costly_updates() {
        let _ = writeln!(md, "\n- {line}");
    }
    if !c.arrays.is_empty() {
        md.push_str("\n| array | arrays | max | p50 | p99 | rho (age, length) | looks unbounded |\n|---|---|---|---|---|---|---|\n");
        for a in &c.arrays {
            let rho = a
                .growth
                .as_ref()
                .map_or_else(|| "-".to_owned(), |g| format!("{:.2} ({})", g.rho, g.pairs));
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} | {} | {rho} | {} |",
                a.path,
                a.seen,
                a.max,
                a.p50,
                a.p99,
                cell(a.unbounded.as_deref().unwrap_or("no")),
            );
        }
    }
    if !c.references.is_empty() {
        md.push_str("\n| field | to | found | indexed | one-sided links | advice |\n|---|---|---|---|---|---|\n");
        for r in &c.references {
            let one_sided = r.one_sided.as_ref().map_or_else(
                || "-".to_owned(),
                |o| format!("{} of {}", o.one_sided, o.links),
            );
            let _ = writeln!(
                md,
                "| `{}` | `{}` | {} of {} | {} | {one_sided} | {} |",
                r.path,
                r.to,
                r.found,
                r.checked,
                if r.indexed { "yes" } else { "no" },
                cell(&r.advice().unwrap_or_default()),
            );
        }
    }
    for p in &c.polymorphic {
        let _ = write!(
            md,
            "\n`{}` decides the keys of `{}` (a tagged enum):\n\n| `{}` | documents | keys |\n|---|---|---|\n",
            p.tag, p.path, p.tag
        );
        for v in &p.variants {
            let _ = writeln!(
                md,
                "| `{}` | {} | {} |",
                cell(&v.tag),
                v.seen,
                v.keys.join(", ")
            );
        }
    }
    if !c.encrypted.is_empty() {
        md.push_str(
            "\n| encrypted field | deterministic | random | in clear |\n|---|---|---|---|\n",
        );
        for e in &c.encrypted {
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} |",
                e.path, e.deterministic, e.random, e.clear
            );
        }
    }
    if let Some(d) = &c.declared {
        let _ = writeln!(
            md,
            "\nDeclared model `{}`: {}",
            d.model,
            cell(&d.to_string())
        );
    }
}
