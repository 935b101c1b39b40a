//! The stored paths of one collection's documents, each named once: a
//! walk finds a field's path by its parent's id and its key, usually at the
//! place the key held in the document before, without building the path's
//! name. Two ways to one name (a key `a.b` at the top, a key `b` under `a`)
//! are one path, as when paths were their names.

use std::collections::HashMap;

/// A path's number; [`ROOT`] is the document itself (the empty name).
pub(super) type PathId = u32;

/// The document itself.
pub(super) const ROOT: PathId = 0;

/// How many distinct paths one collection's read follows. A collection
/// with more (keys that are data, as in a map keyed by ids) has the fields
/// at the paths past these left out of its audit, so that what an audit
/// keeps stays bounded.
pub(super) const PATHS: usize = 10_000;

/// Children a path finds by comparing keys; past them, by name.
const LISTED: usize = 32;

/// What [`Paths::child`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Child {
    /// The path.
    At(PathId),
    /// A new path past the [`PATHS`] followed.
    Past,
    /// A key that is not UTF-8: the document's elements end there.
    NotUtf8,
}

/// The paths seen so far.
#[derive(Debug)]
pub(super) struct Paths {
    /// Each path's name, by id (`items.sku`; the top level's keys alone).
    names: Vec<Box<str>>,
    /// Each path's first [`LISTED`] children: (key, id), in the order first
    /// seen.
    children: Vec<Vec<(Box<str>, PathId)>>,
    /// Every path by name.
    ids: HashMap<Box<str>, PathId>,
    /// The name being looked up, reused.
    name: String,
}

impl Default for Paths {
    fn default() -> Self {
        Paths {
            names: vec!["".into()],
            children: vec![Vec::new()],
            ids: HashMap::from([("".into(), ROOT)]),
            name: String::new(),
        }
    }
}

impl Paths {
    /// The name of `id`.
    pub(super) fn name(&self, id: PathId) -> &str {
        &self.names[id as usize]
    }

    /// How many paths there are (ids run below it).
    pub(super) fn len(&self) -> usize {
        self.names.len()
    }

    /// The path of the key `key` (its bytes) under `parent`, where it may
    /// be the `at`th child as it was before (the guess tried first): a key
    /// seen before is matched by its bytes, a new one checked to be UTF-8
    /// first ([`Child::NotUtf8`]).
    pub(super) fn child(&mut self, parent: PathId, key: &[u8], at: usize) -> Child {
        let listed = &self.children[parent as usize];
        if let Some((k, id)) = listed.get(at) {
            if k.as_bytes() == key {
                return Child::At(*id);
            }
        }
        if let Some((_, id)) = listed.iter().find(|(k, _)| k.as_bytes() == key) {
            return Child::At(*id);
        }
        match super::elements::key(key) {
            None => Child::NotUtf8,
            Some(key) => self.named(parent, key).map_or(Child::Past, Child::At),
        }
    }

    /// [`child`](Self::child) looked up by its name (and listed under its
    /// parent while there is room), or added.
    fn named(&mut self, parent: PathId, key: &str) -> Option<PathId> {
        self.name.clear();
        let prefix = &self.names[parent as usize];
        if !prefix.is_empty() {
            self.name.push_str(prefix);
            self.name.push('.');
        }
        self.name.push_str(key);
        let id = match self.ids.get(self.name.as_str()) {
            Some(id) => *id,
            None if self.names.len() >= PATHS => return None,
            None => {
                let id = PathId::try_from(self.names.len()).ok()?;
                self.names.push(self.name.as_str().into());
                self.children.push(Vec::new());
                self.ids.insert(self.name.as_str().into(), id);
                id
            }
        };
        let listed = &mut self.children[parent as usize];
        if listed.len() < LISTED {
            listed.push((key.into(), id));
        }
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_name_one_path() {
        let mut paths = Paths::default();
        let Child::At(a) = paths.child(ROOT, b"a", 0) else {
            panic!("a path")
        };
        let Child::At(ab) = paths.child(a, b"b", 0) else {
            panic!("a path")
        };
        assert_eq!(paths.name(ab), "a.b");
        // The same name reached another way is the same path.
        assert_eq!(paths.child(ROOT, b"a.b", 1), Child::At(ab));
        // An empty key at the top is the document's own name.
        assert_eq!(paths.child(ROOT, b"", 2), Child::At(ROOT));
        // Found again at another place.
        assert_eq!(paths.child(ROOT, b"a", 5), Child::At(a));
        assert_eq!(paths.child(ROOT, b"\xff", 3), Child::NotUtf8);
        assert_eq!(paths.len(), 3);
    }
}
