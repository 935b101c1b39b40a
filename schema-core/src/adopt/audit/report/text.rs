//! The report as text: a block per collection, then the findings.

use std::fmt;

use super::super::declared::{DeclaredAudit, Failing};
use super::super::found::Audit;
use super::super::polymorphic::PolymorphicAudit;
use super::super::references::ReferenceAudit;

impl fmt::Display for Audit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.collections {
            writeln!(f, "{} ({} documents read)", c.name, c.read)?;
            let s = &c.sizes;
            write!(f, "  sizes: max {} bytes, p99 {} bytes", s.max, s.p99)?;
            if s.over_2mib > 0 {
                write!(
                    f,
                    ", {} over 2 MiB, {} over 8 MiB",
                    s.over_2mib, s.over_8mib
                )?;
                let ids: Vec<&str> = s.largest.iter().map(|(id, _)| id.as_str()).collect();
                write!(f, " (largest: _id {})", ids.join(", "))?;
            }
            writeln!(f)?;
            for line in s.costly_updates() {
                writeln!(f, "  {line}")?;
            }
            for a in &c.arrays {
                writeln!(f, "  {a}")?;
            }
            for r in &c.references {
                writeln!(f, "  {r}")?;
            }
            for p in &c.polymorphic {
                writeln!(f, "  {p}")?;
            }
            for e in &c.encrypted {
                writeln!(f, "  {e}")?;
            }
            if let Some(d) = &c.declared {
                writeln!(f, "  {d}")?;
            }
        }
        let findings = self.findings();
        if findings.is_empty() {
            writeln!(f, "findings: none")
        } else {
            writeln!(f, "findings: {}", findings.len())
        }
    }
}

impl fmt::Display for ReferenceAudit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{} -> {}: {} of {} values looked up are _ids there{}, {}",
            self.collection,
            self.path,
            self.to,
            self.found,
            self.checked,
            if self.array { " (an id array)" } else { "" },
            if self.indexed {
                "indexed"
            } else {
                "not indexed"
            },
        )?;
        if let Some(o) = &self.one_sided {
            write!(
                f,
                ", {} of {} links one-sided ({}.{} points back)",
                o.one_sided, o.links, self.to, o.inverse
            )?;
        }
        if let Some(advice) = self.advice() {
            write!(f, "; {advice}")?;
        }
        Ok(())
    }
}

impl fmt::Display for PolymorphicAudit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{} decides the keys of {}.{}:",
            self.collection, self.tag, self.collection, self.path
        )?;
        for (i, v) in self.variants.iter().enumerate() {
            let sep = if i == 0 { "" } else { ";" };
            write!(f, "{sep} {:?} ({}): {}", v.tag, v.seen, v.keys.join(", "))?;
        }
        write!(f, " (a tagged enum)")
    }
}

impl fmt::Display for DeclaredAudit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (the model of {}): {} documents checked",
            self.model, self.collection, self.checked
        )?;
        let part = |f: &mut fmt::Formatter<'_>, what: &str, failing: &Failing| {
            if failing.count > 0 {
                write!(
                    f,
                    ", {} {what} (_id {})",
                    failing.count,
                    failing.ids.join(", ")
                )
            } else {
                Ok(())
            }
        };
        part(f, "cannot be decoded", &self.undecodable)?;
        part(f, "break a bound", &self.over_bound)?;
        part(f, "fail its validator", &self.validator)?;
        if self.is_finding() {
            write!(
                f,
                "; a sync would refuse the validator while they are stored \
                 (`--on-violations` says what to do), and reading them fails: \
                 fix the data or the model first"
            )?;
        } else {
            write!(f, ", all read and valid")?;
        }
        Ok(())
    }
}
