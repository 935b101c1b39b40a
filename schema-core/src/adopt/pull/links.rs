//! The references the audit found between collections, and how each is
//! declared:
//! `#[reference(index, to = ..)]` for one id at the root of a document,
//! `#[many_to_many(..)]` for an array of ids (two-sided when the target
//! keeps ids back), a comment for ids inside a sub-document (indexed from
//! the root by their path).

use std::collections::{BTreeMap, BTreeSet};

use super::infer::{Kind, Node, Object};
use super::ir::{count, id_type, At, Ty};
use super::names::field_name;
use crate::model::index::server::{same_key_order, ServerIndex};

/// One reference: the ids at a path are `_id`s of `to`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Link {
    pub(super) to: String,
    /// How many distinct values were looked up, and how many were found.
    pub(super) checked: u64,
    pub(super) found: u64,
    /// Whether an index on the server leads with the path.
    pub(super) indexed: bool,
    /// For ids kept on both sides, how many links only one side holds.
    pub(super) one_sided: Option<u64>,
    /// The server's indexes led by the path (declared as they are, by
    /// `index(..)`).
    pub(super) leading: Vec<ServerIndex>,
}

impl Link {
    /// The comment line saying what was found.
    pub(super) fn describe(&self) -> String {
        let mut line = format!(
            "holds `{}` ids ({} of {} looked up found)",
            self.to,
            count(self.found),
            count(self.checked)
        );
        line.push_str(if self.indexed {
            "; an index leads with it"
        } else {
            "; no index leads with it on the server"
        });
        if let Some(n) = self.one_sided.filter(|n| *n > 0) {
            line.push_str(&format!("; {} links held on one side only", count(n)));
        }
        line
    }
}

/// What a reference's attribute needs of its target collection.
#[derive(Debug, Default)]
pub(super) struct Target {
    /// The model's Rust name.
    pub(super) name: String,
    /// Its `_id`'s Rust type, when it has one.
    pub(super) id: Option<Ty>,
    /// Its root fields' Rust names, by stored name.
    pub(super) fields: BTreeMap<String, String>,
}

/// The references of every collection pulled.
#[derive(Debug, Default)]
pub(super) struct Links {
    by_path: BTreeMap<(String, String), Link>,
    pub(super) targets: BTreeMap<String, Target>,
    /// The id arrays that can be declared `#[many_to_many]` (always there,
    /// never null, bounded, items of the target's id type), by collection
    /// and stored name.
    linkable: BTreeSet<(String, String)>,
}

impl Links {
    pub(super) fn new(by_path: BTreeMap<(String, String), Link>) -> Links {
        Links {
            by_path,
            ..Links::default()
        }
    }

    /// Notes the server's indexes led by each reference's path (see
    /// [`Link::leading`]).
    pub(super) fn note_leading(&mut self, listed: &BTreeMap<String, Vec<ServerIndex>>) {
        for ((collection, path), link) in self.by_path.iter_mut() {
            link.leading = listed
                .get(collection)
                .into_iter()
                .flatten()
                .filter(|i| i.keys.keys().next() == Some(path))
                .cloned()
                .collect();
        }
    }

    pub(super) fn get(&self, collection: &str, path: &str) -> Option<&Link> {
        self.by_path.get(&(collection.to_owned(), path.to_owned()))
    }

    /// Learns the targets (names, id types, fields) and which id arrays can
    /// be declared as links, from the collections' walks.
    pub(super) fn prepare(
        &mut self,
        roots: &BTreeMap<String, (String, Object)>,
        long: u64,
        flagged: &BTreeMap<(String, String), String>,
    ) {
        for (collection, (name, object)) in roots {
            let mut fields = BTreeMap::new();
            let mut scope = super::names::Scope::default();
            let mut keys: Vec<&String> = object.fields.keys().collect();
            if let Some(at) = keys.iter().position(|k| *k == "_id") {
                let id = keys.remove(at);
                keys.insert(0, id);
            }
            for key in keys {
                if super::names::plain_key(key) {
                    fields.insert(key.clone(), scope.claim(&[field_name(key)], "_"));
                }
            }
            let id = object.fields.get("_id").and_then(id_type);
            self.targets.insert(
                collection.clone(),
                Target {
                    name: name.clone(),
                    id,
                    fields,
                },
            );
        }
        for ((collection, path), link) in &self.by_path {
            let Some((_, object)) = roots.get(collection) else {
                continue;
            };
            let Some(node) = object.fields.get(path) else {
                continue;
            };
            let target_id = self.targets.get(&link.to).and_then(|t| t.id.clone());
            let flagged = flagged.contains_key(&(collection.clone(), path.clone()));
            if !flagged && linkable(node, object.count, long, target_id.as_ref()) {
                self.linkable.insert((collection.clone(), path.clone()));
            }
        }
    }

    /// The attribute declaring `link` on a field of type `ty` with `attrs`
    /// (its bound): `Ok(None)` when it takes none (an array left unbounded
    /// on purpose), `Err` with the reason when it cannot be declared.
    pub(super) fn attribute(
        &self,
        at: &At<'_>,
        link: &Link,
        ty: &Ty,
        attrs: &[String],
    ) -> std::result::Result<Option<String>, String> {
        if !at.root || at.path.contains('.') {
            return Err(format!(
                "a reference inside a sub-document is indexed from the root, by its path: \
                 `#[document(index(keys(\"{}\" = asc)))]`",
                at.path
            ));
        }
        let target = self
            .targets
            .get(&link.to)
            .ok_or_else(|| format!("`{}` was not pulled", link.to))?;
        let id = target
            .id
            .as_ref()
            .ok_or_else(|| format!("`{}`'s `_id` is of no one type", link.to))?;
        let to = &target.name;
        match ty.inner() {
            Ty::Vec(item) => {
                if !self
                    .linkable
                    .contains(&(at.collection.to_owned(), at.path.clone()))
                {
                    if attrs.is_empty() {
                        return Ok(None);
                    }
                    return Err(format!(
                        "a many-to-many array is always there, never null, bounded, and holds \
                         `{to}`'s id type ({id}), here `{item}`"
                    ));
                }
                let own = bson::doc! { at.path.clone(): 1 };
                if let Some(index) = beside(link, &own) {
                    return Err(format!(
                        "`#[many_to_many(.., to = {to})]` would need an index of its own \
                         (`{{{}: 1}}`) beside the server's `{}`; declare it when you want the \
                         link's writes (`sync` then creates that index)",
                        at.path, index.name
                    ));
                }
                let max = attrs
                    .first()
                    .and_then(|a| a.strip_prefix("#[embed(max = "))
                    .and_then(|a| a.strip_suffix(")]"))
                    .unwrap_or("1000");
                let back = self.by_path.iter().find(|((c, p), l)| {
                    c == &link.to
                        && l.to == at.collection
                        && self.linkable.contains(&(c.clone(), p.clone()))
                });
                Ok(Some(match back {
                    Some(((_, path), _)) => {
                        let inverse = target.fields.get(path).cloned().unwrap_or_default();
                        format!(
                            "#[many_to_many(two_sided, to = {to}, inverse = {inverse}, max = {max})]"
                        )
                    }
                    None => format!("#[many_to_many(one_sided, to = {to}, max = {max})]"),
                }))
            }
            inner if inner == id => {
                let own = bson::doc! { at.path.clone(): 1, "_id": 1 };
                match beside(link, &own) {
                    Some(index) => {
                        let holder = self.targets.get(at.collection).map(|t| &t.fields);
                        Err(reference_beside(index, &at.path, to, holder))
                    }
                    None => Ok(Some(format!("#[reference(index, to = {to})]"))),
                }
            }
            inner => Err(format!("it holds `{inner}` and `{to}`'s ids are `{id}`")),
        }
    }
}

/// The server's index led by the link's path that the attribute would
/// have beside its own index `own`, when the server has not `own` itself.
///
/// Pull declares the server's indexes as they are; an attribute whose own
/// index the server lacks would make the plan create one more index on a
/// key an index already leads with (a reference's `{path: 1, _id: 1}`
/// beside the server's `{path: 1, created: -1}`). The plan cannot count the
/// server's index as the attribute's: they serve different queries (the
/// reference's keyset pages go by `_id` after the key, and the helpers that
/// ride an index ask the server for its exact keys), so the models pulled
/// leave such an attribute to a comment that says what declaring it
/// costs: the plan of freshly pulled models adds only what is missing.
fn beside<'a>(link: &'a Link, own: &bson::Document) -> Option<&'a ServerIndex> {
    if link.leading.iter().any(|i| same_key_order(&i.keys, own)) {
        return None;
    }
    link.leading.first()
}

/// Why a reference led by the server's `index` is left to a comment, and
/// how to declare it: the index on the key alone cannot stay beside the
/// reference's (the derive takes no index on a reference's own key beside
/// it); one on the key and a root field becomes the reference's sort.
fn reference_beside(
    index: &ServerIndex,
    path: &str,
    to: &str,
    fields: Option<&BTreeMap<String, String>>,
) -> String {
    let name = &index.name;
    if index.keys.len() == 1 {
        return format!(
            "the server's index `{name}` is on it alone, and the derive takes no index on a \
             reference's own key beside the reference's index (`{{{path}: 1, _id: 1}}`, ties \
             ordered for pages); to declare `#[reference(index, to = {to})]`, remove the \
             `index(..)` above, `sync`, then drop `{name}`"
        );
    }
    let mut said = format!(
        "`#[reference(index, to = {to})]` would need an index of its own (`{{{path}: 1, _id: \
         1}}`, ties ordered for pages) beside the server's `{name}`; declare it when you want \
         its pages (`sync` then creates that index)"
    );
    // A plain `{path: 1, field: ±1}`: the reference sorted by `field`,
    // whose index (`_id` last) serves every query the server's does (not
    // so for a unique, sparse, partial, TTL or collated one).
    let plain = !index.unique
        && !index.sparse
        && index.expire_after.is_none()
        && index.partial_filter.is_none()
        && index.collation.is_none()
        && index.text.is_none();
    let keys: Vec<(&String, Option<f64>)> = index
        .keys
        .iter()
        .map(|(k, v)| {
            let n = match v {
                bson::Bson::Int32(n) => Some(f64::from(*n)),
                bson::Bson::Int64(n) => Some(*n as f64),
                bson::Bson::Double(n) => Some(*n),
                _ => None,
            };
            (k, n)
        })
        .collect();
    if let [(_, Some(first)), (sort, Some(dir))] = keys[..] {
        let rust = fields.and_then(|f| f.get(sort.as_str()));
        if let (true, Some(rust)) = (plain && first > 0.0, rust) {
            let (word, n) = if dir < 0.0 { ("desc", -1) } else { ("asc", 1) };
            said.push_str(&format!(
                ", or as `#[reference(index, to = {to}, sort({rust} = {word}))]`, whose index \
                 `{{{path}: 1, {sort}: {n}, _id: {n}}}` replaces `{name}`: remove the \
                 `index(..)` above, `sync`, then drop `{name}`"
            ));
        }
    }
    said
}

/// Whether an id array can be a `#[many_to_many]`: there in every document,
/// never null, items of the target's id type, short of `long`.
fn linkable(node: &Node, documents: u64, long: u64, id: Option<&Ty>) -> bool {
    let Some(array) = node.array.as_ref() else {
        return false;
    };
    let item = id_type(&array.items);
    node.present == documents
        && node.nulls == 0
        && node.kinds().eq([Kind::Array])
        && array.items.nulls == 0
        && array.lengths.max < long
        && (item.is_some() || array.items.present == 0)
        && (array.items.present == 0 || item.as_ref() == id)
}
