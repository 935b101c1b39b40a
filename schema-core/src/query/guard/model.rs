//! What the guard knows of a model: its declared indexes ([`Index`]) and
//! the paths of its arrays, built once per model ([`model_of`]).

use super::branch::{Branch, Kind};
use super::search::Search;
use crate::model::index::collation::IndexCollation;
use crate::model::index::{Direction, IndexKind};
use crate::model::Document;
use bson::{Bson, Document as BsonDocument};

/// What the guard needs of a model, computed once per model type.
pub(super) struct Model {
    /// The declared indexes and `_id`'s.
    pub(super) indexes: Vec<Index>,
    /// The stored paths that hold arrays.
    pub(super) arrays: Vec<String>,
    /// Some index is partial: the guard keeps each condition to check its
    /// filter.
    pub(super) has_partial: bool,
}

pub(super) struct Index {
    pub(super) keys: Vec<(String, Direction)>,
    /// Ordered; hashed (equality on its one key, no range or sort); or
    /// 2dsphere (the geo operators on its one key, nothing else).
    pub(super) kind: IndexKind,
    pub(super) unique: bool,
    pub(super) sparse: bool,
    pub(super) partial: Option<BsonDocument>,
    /// The partial filter's fields that are not keys of the index.
    pub(super) filter_fields: Vec<String>,
    /// Its collation: it serves only queries with the same one (and an
    /// index without one only queries without one).
    pub(super) collation: Option<IndexCollation>,
    pub(super) serving: ServingIndex,
}

impl Index {
    pub(super) fn id() -> Index {
        Index::implicit(vec![("_id".to_owned(), Direction::Asc)]).unique()
    }

    /// An index the server keeps of itself.
    pub(super) fn implicit(keys: Vec<(String, Direction)>) -> Index {
        let mut index = Index::of(crate::model::index::IndexSpec::new(
            keys,
            crate::model::index::IndexOrigin::Declared,
        ));
        index.serving.implicit = true;
        index
    }

    pub(super) fn unique(mut self) -> Index {
        self.unique = true;
        self
    }

    pub(super) fn of(spec: crate::model::index::IndexSpec) -> Index {
        let keys = spec.key_document();
        let name = crate::model::index::name_of_key_document(&keys);
        let mut filter_fields = spec
            .partial_filter
            .as_ref()
            .map(super::implied::fields)
            .unwrap_or_default();
        filter_fields.retain(|f| !spec.keys.iter().any(|(k, _)| k == f));
        Index {
            filter_fields,
            kind: spec.kind,
            keys: spec.keys,
            unique: spec.unique,
            sparse: spec.sparse,
            partial: spec.partial_filter,
            collation: spec.collation,
            serving: ServingIndex {
                keys,
                name,
                implicit: false,
            },
        }
    }

    /// Whether a query sent with `collation` can use the index: the same
    /// collation, or none on either side.
    pub(super) fn collates(&self, collation: Option<&IndexCollation>) -> bool {
        crate::model::index::collation::same(self.collation.as_ref(), collation)
    }

    /// Whether the index holds every document `branch` matches: a sparse
    /// index those with one of its fields, a partial index those its filter
    /// passes.
    pub(super) fn holds_all_of(&self, branch: &Branch) -> bool {
        (!self.sparse || self.keys.iter().any(|(k, _)| branch.has(k)))
            && self
                .partial
                .as_ref()
                .is_none_or(|filter| super::implied::implies(branch, filter))
    }
}

pub(super) fn model_of<M: Document>() -> &'static Model {
    crate::model::cache::per_model::<M, Model>(|| {
        let mut indexes = vec![Index::id()];
        // A hidden index serves nothing: the server's planner ignores it.
        indexes.extend(
            crate::model::cache::indexes::<M>()
                .iter()
                .filter(|spec| !spec.hidden)
                .cloned()
                .map(Index::of),
        );
        // A time series' own index on its meta and time fields.
        if let Some(crate::model::timeseries::TimeSeriesSpec {
            time,
            meta: Some(meta),
            ..
        }) = M::TIMESERIES
        {
            let keys = vec![
                (meta.to_owned(), Direction::Asc),
                (time.to_owned(), Direction::Asc),
            ];
            indexes.push(Index::implicit(keys));
        }
        let mut arrays = Vec::new();
        array_paths(&M::json_schema(), "", &mut arrays);
        let has_partial = indexes.iter().any(|i| i.partial.is_some());
        Model {
            indexes,
            arrays,
            has_partial,
        }
    })
}

/// The stored paths of `schema` whose values are arrays.
pub(super) fn array_paths(schema: &BsonDocument, prefix: &str, out: &mut Vec<String>) {
    let Ok(properties) = schema.get_document("properties") else {
        return;
    };
    for (name, property) in properties {
        let Bson::Document(property) = property else {
            continue;
        };
        let path = format!("{prefix}{name}");
        let alternatives = std::iter::once(property).chain(
            ["anyOf", "oneOf"]
                .iter()
                .filter_map(|k| property.get_array(k).ok())
                .flatten()
                .filter_map(Bson::as_document),
        );
        for schema in alternatives {
            let is_array = match schema.get("bsonType") {
                Some(Bson::String(t)) => t == "array",
                Some(Bson::Array(ts)) => ts.iter().any(|t| t.as_str() == Some("array")),
                _ => false,
            };
            if is_array && !out.contains(&path) {
                out.push(path.clone());
            }
            let inner = format!("{path}.");
            array_paths(schema, &inner, out);
            if let Ok(items) = schema.get_document("items") {
                array_paths(items, &inner, out);
            }
        }
    }
}

impl Model {
    pub(super) fn is_array(&self, path: &str) -> bool {
        self.arrays.iter().any(|a| {
            path == a || (path.starts_with(a.as_str()) && path.as_bytes()[a.len()] == b'.')
        })
    }

    /// The index that serves `branch` sorted by `sort` (the module docs'
    /// rule), if one does.
    pub(super) fn serving(
        &'static self,
        branch: &Branch,
        sort: &[(String, Direction)],
        collation: Option<&IndexCollation>,
    ) -> Option<&'static Index> {
        if let Some(search) = Search::of(branch) {
            return self.search_serving(search, branch, sort, collation);
        }
        let point = |index: &&Index| {
            index.unique
                && index.kind == IndexKind::Ordered
                && index.collates(collation)
                && index.holds_all_of(branch)
                && index
                    .keys
                    .iter()
                    .all(|(k, _)| branch.kind(k).is_some_and(|kind| kind.is_eq(index.sparse)))
        };
        if let Some(index) = self.indexes.iter().find(point) {
            return Some(index);
        }
        if !branch.blockers.is_empty() {
            return None;
        }
        let plain = Shape::of(self, branch, sort, &[]);
        self.indexes.iter().find(|index| {
            if !index.collates(collation) || !index.holds_all_of(branch) {
                return false;
            }
            // Conditions on a partial index's filter fields (not its keys)
            // are what puts a document in it: checked on what it finds.
            let own;
            let shape = if index.filter_fields.is_empty() {
                plain.as_ref()
            } else {
                own = Shape::of(self, branch, sort, &index.filter_fields);
                own.as_ref()
            };
            shape.is_some_and(|s| {
                // A hash keeps no order: only equality finds its keys.
                let fits = match index.kind {
                    IndexKind::Ordered => true,
                    IndexKind::Hashed => s.sort.is_empty() && s.ranges.is_empty(),
                    // Their own operators only (`search_serving`).
                    _ => false,
                };
                fits && bounds(&index.keys, &s.eq, &s.sort, s.ranges.first())
            })
        })
    }
}

/// An index a query rides: its key pattern and name, made once per model.
#[derive(Debug)]
pub(crate) struct ServingIndex {
    pub(crate) keys: BsonDocument,
    pub(crate) name: String,
    /// One the server keeps of itself (`_id`'s, a time series' on its meta
    /// and time): no need to ask whether it exists.
    pub(crate) implicit: bool,
}

/// What an index must bound of a branch: its equality fields, its sort
/// without them, its range (at most one).
pub(super) struct Shape<'b> {
    pub(super) eq: Vec<&'b str>,
    pub(super) sort: Vec<&'b (String, Direction)>,
    pub(super) ranges: Vec<&'b str>,
}

impl<'b> Shape<'b> {
    /// The shape of `branch` sorted by `sort`, leaving out the fields in
    /// `skip`; `None` when no index can bound it (a sort on an array, two
    /// ranges, nothing at all).
    pub(super) fn of(
        model: &Model,
        branch: &'b Branch,
        sort: &'b [(String, Direction)],
        skip: &[String],
    ) -> Option<Shape<'b>> {
        let tested = |which: fn(&Kind) -> bool| -> Vec<&'b str> {
            branch
                .fields
                .iter()
                .filter(|f| which(&f.kind) && !skip.iter().any(|s| *s == f.path))
                .map(|f| f.path.as_ref())
                .collect()
        };
        let eq = tested(|k| matches!(k, Kind::Eq { .. }));
        let sort: Vec<&(String, Direction)> = sort
            .iter()
            .filter(|(k, _)| !eq.contains(&k.as_str()))
            .collect();
        if sort.iter().any(|(k, _)| model.is_array(k)) {
            return None;
        }
        let ranges: Vec<&str> = tested(|k| matches!(k, Kind::Range))
            .into_iter()
            .filter(|r| !sort.iter().any(|(k, _)| k == r))
            .collect();
        if ranges.len() > 1 || (eq.is_empty() && sort.is_empty() && ranges.is_empty()) {
            return None;
        }
        Some(Shape { eq, sort, ranges })
    }
}

/// Whether an index with `keys` bounds a query with equality on `eq`, sorted
/// by `sort` and with at most one `range`: its keys start with equality
/// fields (in any order), then the sort (forward or all reversed), then the
/// range; an equality field left over may come later in the index (the
/// server bounds it there too: equality, range, equality), as long as a
/// leading equality or the range bounds the scan.
pub(super) fn bounds(
    keys: &[(String, Direction)],
    eq: &[&str],
    sort: &[&(String, Direction)],
    range: Option<&&str>,
) -> bool {
    let leading = keys
        .iter()
        .take_while(|(k, _)| eq.contains(&k.as_str()))
        .count();
    let rest = &keys[leading..];
    if rest.len() < sort.len() {
        return false;
    }
    let (sorted, rest) = rest.split_at(sort.len());
    let forward = sorted.iter().zip(sort).all(|(a, b)| a == *b);
    let backward = sorted
        .iter()
        .zip(sort)
        .all(|(a, b)| a.0 == b.0 && a.1 != b.1);
    if !(forward || backward) {
        return false;
    }
    let rest = match range {
        Some(r) => match rest.split_first() {
            Some(((k, _), after)) if k == *r => after,
            _ => return false,
        },
        None => rest,
    };
    let left_over: Vec<&&str> = eq
        .iter()
        .filter(|e| !keys[..leading].iter().any(|(k, _)| k == **e))
        .collect();
    left_over.is_empty()
        || ((leading > 0 || range.is_some())
            && left_over.iter().all(|e| rest.iter().any(|(k, _)| k == **e)))
}

impl Model {
    /// The index that serves `branch`'s search (with no sort, nothing that
    /// blocks an index, and every other condition of the branch one the
    /// index's partial filter allows), if one does.
    pub(super) fn search_serving(
        &'static self,
        search: Search<'_>,
        branch: &Branch,
        sort: &[(String, Direction)],
        collation: Option<&IndexCollation>,
    ) -> Option<&'static Index> {
        if !sort.is_empty() || !branch.blockers.is_empty() {
            return None;
        }
        self.indexes.iter().find(|index| {
            index.fits(search) && index.collates(collation) && index.holds_all_of(branch)
        })
    }
}

impl Index {
    /// Whether the index is of the kind (and, for a geo search, on the field)
    /// `search` needs.
    fn fits(&self, search: Search<'_>) -> bool {
        let index = self;
        match search {
            Search::Text => index.kind == IndexKind::Text,
            Search::Geo(path) => {
                index.kind == IndexKind::Sphere2d
                    && index.keys.first().is_some_and(|(k, _)| k == path)
            }
        }
    }
}
