//! What a delete by the policies did: [`Deleted`], and its text.

use std::fmt;

/// What a delete did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Deleted {
    /// Whether the parent existed (and was deleted).
    pub parent: bool,
    /// Documents deleted by cascades, per collection, in the order first
    /// reached.
    pub cascaded: Vec<(&'static str, u64)>,
    /// References cleared by `set_null` or `unset`, per collection and
    /// field.
    pub cleared: Vec<(&'static str, &'static str, u64)>,
}

impl Deleted {
    /// Documents deleted from `collection` by cascades.
    pub fn cascaded_from(&self, collection: &str) -> u64 {
        self.cascaded
            .iter()
            .filter(|(c, _)| *c == collection)
            .map(|(_, n)| n)
            .sum()
    }

    pub(super) fn add_cascaded(&mut self, collection: &'static str, n: u64) {
        match self.cascaded.iter_mut().find(|(c, _)| *c == collection) {
            Some((_, total)) => *total += n,
            None => self.cascaded.push((collection, n)),
        }
    }

    pub(super) fn add_cleared(&mut self, collection: &'static str, field: &'static str, n: u64) {
        match self
            .cleared
            .iter_mut()
            .find(|(c, f, _)| *c == collection && *f == field)
        {
            Some((_, _, total)) => *total += n,
            None => self.cleared.push((collection, field, n)),
        }
    }
}

impl fmt::Display for Deleted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "parent {}",
            if self.parent { "deleted" } else { "not found" }
        )?;
        for (collection, n) in &self.cascaded {
            write!(f, "; {n} deleted from {collection}")?;
        }
        for (collection, field, n) in &self.cleared {
            write!(f, "; {n} {collection}.{field} cleared")?;
        }
        Ok(())
    }
}
