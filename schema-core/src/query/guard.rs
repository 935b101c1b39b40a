//! The index guard (its rule is in the [`query`](crate::query) docs).

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use bson::{Bson, Document as BsonDocument};

use crate::error::{Error, QueryFields, Result};
use crate::index::Direction;
use crate::model::Document;

/// The most `$or` branches (after distributing nested `$or`s and `$and`s)
/// the guard checks; a filter with more is treated as one no index serves.
const MAX_BRANCHES: usize = 64;

/// Checks that an index of `M` serves the query `filter` sorted by `sort`
/// (see the module docs); [`Error::Unindexed`] naming the model, the fields
/// and the attribute that would add the index otherwise. Sends nothing.
///
/// Every query a [`Repo`](crate::Repo) sends calls it (unless its builder
/// was told `.scan()`); call it for a query of your own.
///
/// ```
/// use schema_core::prelude::*;
/// use bson::doc;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Document, Serialize, Deserialize)]
/// #[serde(rename_all = "camelCase")]
/// #[document(collection = "posts", index(keys(title = asc)))]
/// struct Post {
///     #[serde(rename = "_id")]
///     id: String,
///     #[reference(index, sort(at = desc))]
///     author_id: String,
///     title: String,
///     at: i64,
///     views: i64,
/// }
///
/// let check = schema_core::query::check::<Post>;
/// assert!(check(&doc! { "_id": "p1" }, None).is_ok());
/// assert!(check(&doc! { "authorId": "ada" }, Some(&doc! { "at": -1 })).is_ok());
/// assert!(check(&doc! { "title": { "$in": ["a", "b"] } }, None).is_ok());
/// let err = check(&doc! { "views": { "$gt": 10 } }, None).unwrap_err();
/// assert!(err.to_string().contains(r#"#[document(index(keys("views" = asc)))]"#));
/// ```
pub fn check<M: Document>(filter: &BsonDocument, sort: Option<&BsonDocument>) -> Result<()> {
    let model = model_of::<M>();
    let sort = match sort.map(parse_sort).transpose() {
        Ok(sort) => sort.unwrap_or_default(),
        Err(op) => return Err(refusal::<M>(model, &Branch::blocked(op), &[])),
    };
    let branches = branches(filter);
    for branch in &branches {
        if !model.serves(branch, &sort) {
            return Err(refusal::<M>(model, branch, &sort));
        }
    }
    Ok(())
}

/// What the guard needs of a model, computed once per model type.
struct Model {
    /// The declared indexes and `_id`'s.
    indexes: Vec<Index>,
    /// The stored paths that hold arrays.
    arrays: Vec<String>,
}

struct Index {
    keys: Vec<(String, Direction)>,
    unique: bool,
    sparse: bool,
    partial: bool,
}

fn model_of<M: Document>() -> &'static Model {
    static MODELS: OnceLock<RwLock<HashMap<TypeId, &'static Model>>> = OnceLock::new();
    let models = MODELS.get_or_init(RwLock::default);
    let id = TypeId::of::<M>();
    if let Some(model) = models.read().ok().and_then(|m| m.get(&id).copied()) {
        return model;
    }
    let mut indexes = vec![Index {
        keys: vec![("_id".to_owned(), Direction::Asc)],
        unique: true,
        sparse: false,
        partial: false,
    }];
    indexes.extend(M::indexes().into_iter().map(|spec| Index {
        keys: spec.keys,
        unique: spec.unique,
        sparse: spec.sparse,
        partial: spec.partial_filter.is_some(),
    }));
    let mut arrays = Vec::new();
    array_paths(&M::json_schema(), "", &mut arrays);
    // One model per type, kept for the life of the process.
    let model: &'static Model = Box::leak(Box::new(Model { indexes, arrays }));
    match models.write() {
        Ok(mut m) => m.entry(id).or_insert(model),
        Err(_) => model,
    }
}

/// The stored paths of `schema` whose values are arrays.
fn array_paths(schema: &BsonDocument, prefix: &str, out: &mut Vec<String>) {
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
    fn is_array(&self, path: &str) -> bool {
        self.arrays.iter().any(|a| {
            path == a || (path.starts_with(a.as_str()) && path.as_bytes()[a.len()] == b'.')
        })
    }

    /// Whether some index serves `branch` sorted by `sort` (the module docs'
    /// rule).
    fn serves(&self, branch: &Branch, sort: &[(String, Direction)]) -> bool {
        let point = |index: &Index| {
            index.unique
                && !index.partial
                && index
                    .keys
                    .iter()
                    .all(|(k, _)| branch.kind(k).is_some_and(|kind| kind.is_eq(index.sparse)))
        };
        if self.indexes.iter().any(point) {
            return true;
        }
        if !branch.blockers.is_empty() {
            return false;
        }
        let eq: Vec<&str> = branch.fields_of(|k| matches!(k, Kind::Eq { .. }));
        let sort: Vec<&(String, Direction)> = sort
            .iter()
            .filter(|(k, _)| !eq.contains(&k.as_str()))
            .collect();
        if sort.iter().any(|(k, _)| self.is_array(k)) {
            return false;
        }
        let ranges: Vec<&str> = branch
            .fields_of(|k| matches!(k, Kind::Range))
            .into_iter()
            .filter(|r| !sort.iter().any(|(k, _)| k == r))
            .collect();
        if ranges.len() > 1 || (eq.is_empty() && sort.is_empty() && ranges.is_empty()) {
            return false;
        }
        self.indexes.iter().any(|index| {
            if index.partial || index.keys.len() < eq.len() + sort.len() + ranges.len() {
                return false;
            }
            if index.sparse
                && !index.keys.first().is_some_and(|(k, _)| {
                    branch
                        .kind(k)
                        .is_some_and(|kind| matches!(kind, Kind::Eq { null: false }))
                })
            {
                return false;
            }
            let (prefix, rest) = index.keys.split_at(eq.len());
            if !prefix.iter().all(|(k, _)| eq.contains(&k.as_str())) {
                return false;
            }
            let (sorted, rest) = rest.split_at(sort.len());
            let forward = sorted.iter().zip(&sort).all(|(a, b)| a == *b);
            let backward = sorted
                .iter()
                .zip(&sort)
                .all(|(a, b)| a.0 == b.0 && a.1 != b.1);
            if !(forward || backward) {
                return false;
            }
            ranges.first().is_none_or(|r| rest[0].0 == *r)
        })
    }
}

/// How a query tests one field.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// Equality (`null` when the value is null or `$in` holds null).
    Eq { null: bool },
    /// A range or another test an index scans (`$gt`, `$ne`, `$regex`...).
    Range,
}

impl Kind {
    fn is_eq(self, sparse: bool) -> bool {
        match self {
            Kind::Eq { null } => !(sparse && null),
            Kind::Range => false,
        }
    }
}

/// One conjunction of conditions: the whole filter, or one branch of its `$or`s.
#[derive(Debug, Clone, Default)]
struct Branch {
    /// Each field tested, with how (equality wins over a range on one field).
    fields: Vec<(String, Kind)>,
    /// The operators no index bounds (`$where`, `$size` on `tags`...).
    blockers: Vec<String>,
    /// The tests applied to the documents the other conditions find
    /// (`$elemMatch`): served when those are.
    residual: Vec<String>,
}

impl Branch {
    fn blocked(what: String) -> Self {
        Branch {
            blockers: vec![what],
            ..Branch::default()
        }
    }

    fn kind(&self, field: &str) -> Option<Kind> {
        self.fields
            .iter()
            .find(|(f, _)| f == field)
            .map(|(_, kind)| *kind)
    }

    fn fields_of(&self, which: impl Fn(&Kind) -> bool) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|(_, kind)| which(kind))
            .map(|(f, _)| f.as_str())
            .collect()
    }

    fn add(&mut self, field: String, kind: Kind) {
        match self.fields.iter_mut().find(|(f, _)| *f == field) {
            Some((_, old)) => {
                *old = match (*old, kind) {
                    (Kind::Eq { null: a }, Kind::Eq { null: b }) => Kind::Eq { null: a && b },
                    (eq @ Kind::Eq { .. }, _) | (_, eq @ Kind::Eq { .. }) => eq,
                    (Kind::Range, Kind::Range) => Kind::Range,
                }
            }
            None => self.fields.push((field, kind)),
        }
    }

    fn merge(&self, other: &Branch) -> Branch {
        let mut merged = self.clone();
        merged.absorb(other.clone());
        merged
    }

    /// Adds `other`'s conditions to this branch.
    fn absorb(&mut self, other: Branch) {
        for (f, kind) in other.fields {
            self.add(f, kind);
        }
        self.blockers.extend(other.blockers);
        self.residual.extend(other.residual);
    }
}

/// The filter as a disjunction of conjunctions (one branch without `$or`).
fn branches(filter: &BsonDocument) -> Vec<Branch> {
    conjunction(filter, "")
}

/// Every pair of `left` and `right` merged, or one blocked branch past
/// [`MAX_BRANCHES`].
fn cross(mut left: Vec<Branch>, right: Vec<Branch>) -> Vec<Branch> {
    if left.len() == 1 && right.len() == 1 {
        // The common case (no `$or`): one branch grows, nothing is copied.
        right.into_iter().for_each(|r| left[0].absorb(r));
        return left;
    }
    if left.len() * right.len() > MAX_BRANCHES {
        return vec![Branch::blocked(format!(
            "more than {MAX_BRANCHES} `$or` branches"
        ))];
    }
    left.iter()
        .flat_map(|l| right.iter().map(move |r| l.merge(r)))
        .collect()
}

/// The branches of the conditions of `doc`, whose fields are under `prefix`
/// (`""`, or `items.` inside an `$elemMatch`).
fn conjunction(doc: &BsonDocument, prefix: &str) -> Vec<Branch> {
    let mut out = vec![Branch::default()];
    for (key, value) in doc {
        let parts = match key.as_str() {
            "$comment" => continue,
            "$and" | "$or" => match value.as_array() {
                Some(items) => {
                    let subs = items.iter().map(|item| match item {
                        Bson::Document(d) => conjunction(d, prefix),
                        _ => vec![Branch::blocked(format!(
                            "`{key}` item that is not a document"
                        ))],
                    });
                    if key == "$and" {
                        subs.fold(vec![Branch::default()], cross)
                    } else {
                        let alternatives: Vec<Branch> = subs.flatten().collect();
                        if alternatives.is_empty() {
                            vec![Branch::blocked("an empty `$or`".to_owned())]
                        } else {
                            alternatives
                        }
                    }
                }
                None => vec![Branch::blocked(format!("`{key}` that is not an array"))],
            },
            op if op.starts_with('$') => vec![Branch::blocked(format!("`{op}`"))],
            field if prefix.is_empty() => field_branches(field, value),
            field => field_branches(&format!("{prefix}{field}"), value),
        };
        out = cross(out, parts);
    }
    out
}

/// The branches of one field's condition `value`.
fn field_branches(path: &str, value: &Bson) -> Vec<Branch> {
    let mut branch = Branch::default();
    let ops = match value {
        Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => d,
        Bson::Null => {
            branch.add(path.to_owned(), Kind::Eq { null: true });
            return vec![branch];
        }
        _ => {
            branch.add(path.to_owned(), Kind::Eq { null: false });
            return vec![branch];
        }
    };
    for (op, arg) in ops {
        match op.as_str() {
            "$eq" => branch.add(
                path.to_owned(),
                Kind::Eq {
                    null: matches!(arg, Bson::Null),
                },
            ),
            "$in" => branch.add(
                path.to_owned(),
                Kind::Eq {
                    null: arg
                        .as_array()
                        .is_none_or(|a| a.iter().any(|v| matches!(v, Bson::Null))),
                },
            ),
            "$all" => branch.add(path.to_owned(), Kind::Eq { null: false }),
            "$gt" | "$gte" | "$lt" | "$lte" | "$ne" | "$nin" | "$exists" | "$regex"
            | "$options" | "$type" | "$not" => branch.add(path.to_owned(), Kind::Range),
            // Checked on the documents the rest of the query finds: the
            // test server bounds no index with it.
            "$elemMatch" => branch.residual.push(format!("`$elemMatch` on `{path}`")),
            other => branch.blockers.push(format!("`{other}` on `{path}`")),
        }
    }
    vec![branch]
}

/// The sort document as keys and directions; the operator that makes it one
/// no index serves (`$meta`) otherwise.
fn parse_sort(sort: &BsonDocument) -> std::result::Result<Vec<(String, Direction)>, String> {
    sort.iter()
        .map(|(k, v)| {
            let n = match v {
                Bson::Int32(n) => f64::from(*n),
                Bson::Int64(n) => *n as f64,
                Bson::Double(n) => *n,
                _ => return Err(format!("a sort on `{k}` that is not 1 or -1")),
            };
            let dir = if n < 0.0 {
                Direction::Desc
            } else {
                Direction::Asc
            };
            Ok((k.clone(), dir))
        })
        .collect()
}

/// [`Error::Unindexed`] for an unserved `branch` sorted by `sort`.
fn refusal<M: Document>(model: &Model, branch: &Branch, sort: &[(String, Direction)]) -> Error {
    let equality: Vec<String> = branch
        .fields_of(|k| matches!(k, Kind::Eq { .. }))
        .into_iter()
        .map(str::to_owned)
        .collect();
    let sort: Vec<(String, Direction)> = sort
        .iter()
        .filter(|(k, _)| !equality.contains(k))
        .cloned()
        .collect();
    let range: Vec<String> = branch
        .fields_of(|k| matches!(k, Kind::Range))
        .into_iter()
        .filter(|r| !sort.iter().any(|(k, _)| k == r))
        .map(str::to_owned)
        .collect();
    let keys: Vec<String> = equality
        .iter()
        .map(|k| (k.clone(), Direction::Asc))
        .chain(sort.iter().cloned())
        .chain(range.iter().take(1).map(|k| (k.clone(), Direction::Asc)))
        .map(|(k, d)| {
            let dir = if d == Direction::Asc { "asc" } else { "desc" };
            format!("{k:?} = {dir}")
        })
        .collect();
    // No index serves two ranges, a sort on an array, or what no index bounds.
    let servable = branch.blockers.is_empty()
        && range.len() <= 1
        && !sort.iter().any(|(k, _)| model.is_array(k))
        && !keys.is_empty();
    let index = servable.then(|| format!("#[document(index(keys({})))]", keys.join(", ")));
    let mut unindexable = branch.blockers.clone();
    if equality.is_empty() && sort.is_empty() && range.is_empty() {
        unindexable.extend(branch.residual.iter().cloned());
    }
    let index = index.filter(|_| unindexable.is_empty());
    Error::Unindexed {
        model: M::NAME,
        collection: M::COLLECTION,
        query: Box::new(QueryFields {
            equality,
            sort: sort.into_iter().map(|(k, _)| k).collect(),
            range,
            unindexable,
        }),
        index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{IndexOrigin, IndexSpec};
    use bson::doc;

    fn model(specs: Vec<IndexSpec>, schema: BsonDocument) -> Model {
        let mut indexes = vec![Index {
            keys: vec![("_id".to_owned(), Direction::Asc)],
            unique: true,
            sparse: false,
            partial: false,
        }];
        indexes.extend(specs.into_iter().map(|spec| Index {
            keys: spec.keys,
            unique: spec.unique,
            sparse: spec.sparse,
            partial: spec.partial_filter.is_some(),
        }));
        let mut arrays = Vec::new();
        array_paths(&schema, "", &mut arrays);
        Model { indexes, arrays }
    }

    fn spec(keys: &[(&str, i32)]) -> IndexSpec {
        IndexSpec::new(
            keys.iter()
                .map(|(k, d)| {
                    let dir = if *d < 0 {
                        Direction::Desc
                    } else {
                        Direction::Asc
                    };
                    (k.to_string(), dir)
                })
                .collect(),
            IndexOrigin::Declared,
        )
    }

    fn posts() -> Model {
        let mut unique = spec(&[("slug", 1)]);
        unique.unique = true;
        let mut sparse = spec(&[("nick", 1)]);
        sparse.sparse = true;
        let mut partial = spec(&[("score", -1)]);
        partial.partial_filter = Some(doc! { "score": { "$exists": true } });
        model(
            vec![
                spec(&[("authorId", 1), ("at", -1), ("_id", -1)]),
                spec(&[("profile.displayName", 1)]),
                spec(&[("tags", 1)]),
                spec(&[("items.sku", 1), ("items.qty", 1)]),
                unique,
                sparse,
                partial,
            ],
            doc! { "properties": {
                "tags": { "bsonType": "array", "items": { "bsonType": "string" } },
                "items": { "bsonType": ["array", "null"], "items": { "properties": {
                    "sku": { "bsonType": "string" } } } },
            } },
        )
    }

    fn served(filter: BsonDocument, sort: BsonDocument) -> bool {
        let sort = parse_sort(&sort).unwrap();
        let m = posts();
        branches(&filter).iter().all(|b| m.serves(b, &sort))
    }

    #[test]
    fn equality_then_sort_then_range_on_a_prefix() {
        assert!(served(doc! { "authorId": "a" }, doc! {}));
        assert!(served(doc! { "authorId": "a" }, doc! { "at": -1 }));
        assert!(served(doc! { "authorId": "a" }, doc! { "at": 1, "_id": 1 }));
        assert!(served(
            doc! { "authorId": "a" },
            doc! { "at": -1, "_id": -1 }
        ));
        assert!(!served(
            doc! { "authorId": "a" },
            doc! { "at": -1, "_id": 1 }
        ));
        assert!(served(
            doc! { "authorId": "a", "at": { "$lt": 5 } },
            doc! { "at": -1 }
        ));
        assert!(served(
            doc! { "authorId": "a", "at": { "$lt": 5 } },
            doc! {}
        ));
        assert!(served(
            doc! { "at": 5, "authorId": { "$in": ["a"] } },
            doc! {}
        ));
        // A sort on an equality field is constant.
        assert!(served(doc! { "authorId": "a" }, doc! { "authorId": 1 }));
        // Not a prefix, a range before the sort, two ranges.
        assert!(!served(doc! { "at": 5 }, doc! {}));
        assert!(!served(doc! { "authorId": "a" }, doc! { "_id": 1 }));
        assert!(!served(
            doc! { "authorId": { "$gt": "a" }, "at": { "$gt": 1 } },
            doc! {}
        ));
        assert!(!served(
            doc! { "authorId": "a", "title": "t" },
            doc! { "at": -1 }
        ));
        // The whole collection, unsorted: a scan. Sorted on an index: served.
        assert!(!served(doc! {}, doc! {}));
        assert!(served(doc! {}, doc! { "_id": -1 }));
        assert!(served(doc! {}, doc! { "authorId": 1, "at": -1 }));
    }

    #[test]
    fn id_and_unique_equality_are_always_served() {
        assert!(served(doc! { "_id": "p1", "title": "x" }, doc! { "x": 1 }));
        assert!(served(doc! { "_id": { "$in": ["a", "b"] } }, doc! {}));
        assert!(served(doc! { "slug": "s", "$where": "1" }, doc! {}));
        assert!(!served(
            doc! { "_id": { "$gt": "a" }, "title": "x" },
            doc! {}
        ));
    }

    #[test]
    fn or_needs_every_branch_and_and_is_flattened() {
        assert!(served(
            doc! { "$or": [{ "_id": 1 }, { "authorId": "a" }] },
            doc! {}
        ));
        assert!(!served(
            doc! { "$or": [{ "_id": 1 }, { "title": "a" }] },
            doc! {}
        ));
        assert!(served(
            doc! { "authorId": "a", "$or": [{ "at": 1 }, { "at": { "$gt": 5 } }] },
            doc! {}
        ));
        assert!(served(
            doc! { "$and": [{ "authorId": "a" }, { "at": { "$gte": 1 } }] },
            doc! {}
        ));
        // Branches multiply past the limit: refused.
        let many: Vec<Bson> = (0..9).map(|i| doc! { "authorId": i }.into()).collect();
        let filter = doc! { "$and": [{ "$or": many.clone() }, { "$or": many }] };
        let b = branches(&filter);
        assert_eq!(b.len(), 1);
        assert!(!b[0].blockers.is_empty());
    }

    #[test]
    fn unanalysable_operators_are_refused() {
        for filter in [
            doc! { "$where": "true" },
            doc! { "$expr": { "$eq": ["$a", 1] } },
            doc! { "$text": { "$search": "x" } },
            doc! { "$nor": [{ "authorId": "a" }] },
            doc! { "authorId": "a", "tags": { "$size": 2 } },
            doc! { "authorId": { "$mystery": 1 } },
        ] {
            assert!(!served(filter.clone(), doc! {}), "{filter}");
        }
        assert!(parse_sort(&doc! { "s": { "$meta": "textScore" } }).is_err());
    }

    #[test]
    fn paths_arrays_and_index_options() {
        assert!(served(doc! { "profile.displayName": "x" }, doc! {}));
        assert!(!served(doc! { "profile": { "displayName": "x" } }, doc! {}));
        assert!(served(doc! { "tags": "rust" }, doc! {}));
        assert!(served(doc! { "tags": { "$all": ["a", "b"] } }, doc! {}));
        assert!(!served(doc! {}, doc! { "tags": 1 }));
        assert!(!served(
            doc! { "items": { "$elemMatch": { "sku": "a", "qty": { "$gt": 1 } } } },
            doc! {}
        ));
        assert!(served(
            doc! { "items.sku": "a", "items": { "$elemMatch": { "sku": "a", "qty": 1 } } },
            doc! {}
        ));
        assert!(!served(doc! {}, doc! { "items.sku": 1 }));
        assert!(served(doc! { "nick": "n" }, doc! {}));
        assert!(!served(doc! { "nick": null }, doc! {}));
        assert!(!served(doc! { "nick": { "$gt": "a" } }, doc! {}));
        assert!(!served(doc! { "score": { "$gt": 1 } }, doc! {}));
    }
}
