//! The index guard (its rule is in the [`query`](crate::query) docs).

mod branch;
mod implied;
mod model;
mod search;
pub(crate) mod targeting;

#[cfg(test)]
use std::sync::OnceLock;

use bson::{Bson, Document as BsonDocument};

use crate::error::{Error, QueryFields, Result};
use crate::model::index::collation::IndexCollation;
use crate::model::index::Direction;
use crate::model::Document;
use branch::{branches, Branch, Kind};
pub(crate) use model::ServingIndex;
use model::{model_of, Model};
use search::Search;

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
/// let check = schema_core::check::<Post>;
/// assert!(check(&doc! { "_id": "p1" }, None).is_ok());
/// assert!(check(&doc! { "authorId": "ada" }, Some(&doc! { "at": -1 })).is_ok());
/// assert!(check(&doc! { "title": { "$in": ["a", "b"] } }, None).is_ok());
/// let err = check(&doc! { "views": { "$gt": 10 } }, None).unwrap_err();
/// assert!(err.to_string().contains(r#"#[document(index(keys("views" = asc)))]"#));
/// ```
pub fn check<M: Document>(filter: &BsonDocument, sort: Option<&BsonDocument>) -> Result<()> {
    plan::<M>(filter, sort).map(drop)
}

/// The stored paths of `M`'s arrays that `path` is or goes through,
/// outermost first.
pub(crate) fn array_prefixes<M: Document>(path: &str) -> Vec<&'static str> {
    let mut arrays: Vec<&'static str> = model_of::<M>()
        .arrays
        .iter()
        .map(String::as_str)
        .filter(|a| {
            path == *a || (path.starts_with(*a) && path.as_bytes().get(a.len()) == Some(&b'.'))
        })
        .collect();
    arrays.sort_by_key(|a| a.len());
    arrays
}

/// The indexes that serve a query, as [`plan`] finds them: the index each
/// branch rides (one per branch, without repeats).
#[derive(Debug, Clone)]
pub(crate) struct Served {
    pub(crate) indexes: Vec<&'static ServingIndex>,
}

/// [`check`], and which indexes serve the query.
pub(crate) fn plan<M: Document>(
    filter: &BsonDocument,
    sort: Option<&BsonDocument>,
) -> Result<Served> {
    plan_with::<M>(filter, sort, None)
}

/// [`plan`] for a query sent with `collation`: only indexes with the same
/// collation serve it (and without one, only indexes without one).
pub(crate) fn plan_with<M: Document>(
    filter: &BsonDocument,
    sort: Option<&BsonDocument>,
    collation: Option<&IndexCollation>,
) -> Result<Served> {
    let model = model_of::<M>();
    let sort = match sort.map(parse_sort).transpose() {
        Ok(sort) => sort.unwrap_or_default(),
        Err(op) => return Err(refusal::<M>(model, &Branch::blocked(op), &[])),
    };
    let mut indexes: Vec<&'static ServingIndex> = Vec::with_capacity(1);
    let branches = branches(filter, model.has_partial);
    for branch in &branches {
        match model.serving(branch, &sort, collation) {
            Some(index) => {
                if !indexes.iter().any(|i| std::ptr::eq(*i, &index.serving)) {
                    indexes.push(&index.serving);
                }
            }
            None => return Err(refusal::<M>(model, branch, &sort)),
        }
    }
    Ok(Served { indexes })
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
    if let Some(search) = Search::of(branch) {
        return search::search_refusal::<M>(search, branch, sort);
    }
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
    let schema = M::json_schema();
    let ids = equality
        .iter()
        .filter(|path| holds_ids(&schema, path))
        .cloned()
        .collect();
    Error::Unindexed {
        model: M::NAME,
        collection: M::COLLECTION,
        query: Box::new(QueryFields {
            equality,
            sort: sort.into_iter().map(|(k, _)| k).collect(),
            range,
            unindexable,
            ids,
        }),
        index,
    }
}

/// Whether the top-level field stored as `path` holds ids: it is named
/// `..Id` or `.._id` (not `_id` itself), or `schema` stores it as an
/// `ObjectId` or a UUID (`binData`).
fn holds_ids(schema: &BsonDocument, path: &str) -> bool {
    if path == "_id" || path.contains('.') {
        return false;
    }
    let named = path.len() > 2 && (path.ends_with("Id") || path.ends_with("_id"));
    let types = schema
        .get_document("properties")
        .and_then(|p| p.get_document(path))
        .ok()
        .and_then(|p| p.get("bsonType"));
    let id_type = |t: &Bson| matches!(t.as_str(), Some("objectId" | "binData"));
    let typed = match types {
        Some(Bson::Array(types)) => types.iter().any(id_type),
        Some(t) => id_type(t),
        None => false,
    };
    named || typed
}

#[cfg(test)]
mod tests {
    use super::model::{array_paths, Index};
    use super::*;
    use crate::model::index::IndexKind;
    use crate::model::index::{IndexOrigin, IndexSpec};
    use bson::doc;

    #[test]
    fn an_id_field_is_offered_a_reference_first() {
        let schema = doc! { "properties": {
            "recipeId": { "bsonType": "string" },
            "chef": { "bsonType": ["objectId", "null"] },
            "title": { "bsonType": "string" },
        } };
        assert!(holds_ids(&schema, "recipeId"));
        assert!(holds_ids(&schema, "chef"));
        assert!(holds_ids(&schema, "owner_id"));
        assert!(!holds_ids(&schema, "title"));
        assert!(!holds_ids(&schema, "_id"));
        assert!(!holds_ids(&schema, "meta.recipeId"));
        let refused = |equality: &str, sort: &[&str]| {
            Error::Unindexed {
                model: "Meal",
                collection: "meals",
                query: Box::new(QueryFields {
                    equality: vec![equality.to_owned()],
                    sort: sort.iter().map(|s| (*s).to_owned()).collect(),
                    ids: vec![equality.to_owned()],
                    ..QueryFields::default()
                }),
                index: Some(format!("#[document(index(keys({equality:?} = asc)))]")),
            }
            .to_string()
        };
        let msg = refused("recipeId", &[]);
        let reference = msg.find("`#[reference(index, to = Recipe)]`").expect(&msg);
        let index = msg.find(r#"index(keys("recipeId" = asc))"#).expect(&msg);
        assert!(reference < index, "{msg}");
        assert!(refused("chef", &[]).contains("to = Chef"));
        // Sorted: the compound index it needs is declared as such.
        assert!(!refused("recipeId", &["at"]).contains("#[reference"));
    }

    /// Whether `m` serves every branch of `filter` sorted by `sort`.
    fn serves(m: &'static Model, filter: BsonDocument, sort: BsonDocument) -> bool {
        let sort = parse_sort(&sort).unwrap();
        branches(&filter, false)
            .iter()
            .all(|b| m.serving(b, &sort, None).is_some())
    }

    fn model(specs: Vec<IndexSpec>, schema: BsonDocument) -> Model {
        let mut indexes = vec![Index::id()];
        indexes.extend(specs.into_iter().map(Index::of));
        let mut arrays = Vec::new();
        array_paths(&schema, "", &mut arrays);
        let has_partial = indexes.iter().any(|i| i.partial.is_some());
        Model {
            indexes,
            arrays,
            has_partial,
        }
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
        let mut live = spec(&[("region", 1)]);
        live.partial_filter = Some(doc! { "status": "live", "rank": { "$gte": 10 } });
        let mut sparse_pair = spec(&[("a", 1), ("b", 1)]);
        sparse_pair.sparse = true;
        model(
            vec![
                spec(&[("authorId", 1), ("at", -1), ("_id", -1)]),
                spec(&[("profile.displayName", 1)]),
                spec(&[("tags", 1)]),
                spec(&[("items.sku", 1), ("items.qty", 1)]),
                unique,
                sparse,
                partial,
                live,
                sparse_pair,
                spec(&[("status", 1), ("seats", 1), ("odo", 1)]),
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
        // One model for the test process, as `model_of` keeps one per type.
        static POSTS: OnceLock<Model> = OnceLock::new();
        let m: &'static Model = POSTS.get_or_init(posts);
        branches(&filter, true)
            .iter()
            .all(|b| m.serving(b, &sort, None).is_some())
    }

    #[test]
    fn a_hashed_index_serves_equality_and_an_ordered_one_more() {
        static DEVICES: OnceLock<(Model, Model)> = OnceLock::new();
        let (hashed, ordered) = DEVICES.get_or_init(|| {
            let hashed = IndexSpec::hashed("serial", IndexOrigin::Declared);
            (
                model(vec![hashed], doc! {}),
                model(vec![spec(&[("serial", 1)])], doc! {}),
            )
        });
        let eq = || doc! { "serial": "SN-1" };
        let any = || doc! { "serial": { "$in": ["SN-1", "SN-2"] } };
        let range = || doc! { "serial": { "$gt": "SN-1" } };
        let by_serial = || doc! { "serial": 1 };
        for m in [hashed, ordered] {
            assert!(serves(m, eq(), doc! {}));
            assert!(serves(m, any(), doc! {}));
            assert!(serves(m, eq(), by_serial()));
        }
        assert!(!serves(hashed, range(), doc! {}));
        assert!(!serves(hashed, doc! {}, by_serial()));
        assert!(serves(ordered, range(), doc! {}));
        assert!(serves(ordered, doc! {}, by_serial()));
    }

    #[test]
    fn text_and_2dsphere_indexes_serve_their_operators_only() {
        static MODELS: OnceLock<(Model, Model)> = OnceLock::new();
        let (kinds, plain) = MODELS.get_or_init(|| {
            let text = spec(&[("title", 1), ("body", 1)]).of_kind(IndexKind::Text);
            let geo = spec(&[("loc", 1)]).of_kind(IndexKind::Sphere2d);
            let plain = spec(&[("title", 1)]);
            (model(vec![text, geo], doc! {}), model(vec![plain], doc! {}))
        });
        let search = || doc! { "$text": { "$search": "rust" } };
        let near = || doc! { "loc": { "$near": { "$geometry": { "type": "Point", "coordinates": [0.0, 0.0] }, "$maxDistance": 10.0 } } };
        assert!(serves(kinds, search(), doc! {}));
        assert!(serves(
            kinds,
            doc! { "$text": { "$search": "rust" }, "title": "x" },
            doc! {}
        ));
        assert!(serves(kinds, near(), doc! {}));
        assert!(serves(
            kinds,
            doc! { "loc": { "$geoWithin": { "$box": [[0.0, 0.0], [1.0, 1.0]] } } },
            doc! {}
        ));
        // Nothing else: not an equality on their keys, nor a sort.
        assert!(!serves(kinds, doc! { "title": "x" }, doc! {}));
        assert!(!serves(kinds, doc! { "loc": { "$gt": 1 } }, doc! {}));
        assert!(!serves(kinds, search(), doc! { "title": 1 }));
        assert!(!serves(kinds, near(), doc! { "title": 1 }));
        // And an ordered index serves neither operator.
        assert!(!serves(
            plain,
            doc! { "$text": { "$search": "rust" }, "title": "x" },
            doc! {}
        ));
        assert!(serves(plain, doc! { "title": "x" }, doc! {}));
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
        let b = branches(&filter, false);
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
            doc! { "authorId": "a", "$where": "true" },
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
    }

    #[test]
    fn nor_and_expr_are_checked_on_what_an_index_finds() {
        assert!(served(
            doc! { "authorId": "a", "$nor": [{ "title": "x" }] },
            doc! {}
        ));
        assert!(served(
            doc! { "authorId": "a", "$expr": { "$gt": ["$views", "$at"] } },
            doc! { "at": -1 }
        ));
        // Alone, or in an `$or` branch of their own: nothing bounds them.
        assert!(!served(doc! { "$nor": [{ "title": "x" }] }, doc! {}));
        assert!(!served(
            doc! { "$or": [{ "authorId": "a" }, { "$expr": { "$eq": ["$a", 1] } }] },
            doc! {}
        ));
    }

    #[test]
    fn a_sparse_index_serves_what_needs_its_field() {
        assert!(served(doc! { "nick": { "$gt": "a" } }, doc! {}));
        assert!(served(doc! { "nick": { "$exists": true } }, doc! {}));
        assert!(served(doc! { "nick": { "$regex": "^a" } }, doc! {}));
        assert!(!served(doc! { "nick": { "$exists": false } }, doc! {}));
        assert!(!served(doc! { "nick": { "$ne": "a" } }, doc! {}));
        assert!(!served(doc! { "nick": { "$gte": null } }, doc! {}));
        // A compound sparse index holds the documents with any of its keys.
        assert!(served(doc! { "a": 1, "b": { "$gt": 2 } }, doc! {}));
        assert!(served(doc! { "a": null, "b": { "$gt": 2 } }, doc! {}));
        assert!(!served(doc! { "a": null }, doc! {}));
    }

    #[test]
    fn a_partial_index_serves_what_implies_its_filter() {
        assert!(served(doc! { "score": { "$gt": 1 } }, doc! {}));
        assert!(served(doc! { "score": 3 }, doc! {}));
        assert!(!served(doc! { "score": { "$ne": 1 } }, doc! {}));
        assert!(served(
            doc! { "region": "eu", "status": "live", "rank": { "$gt": 10 } },
            doc! {}
        ));
        assert!(!served(
            doc! { "region": "eu", "status": "live", "rank": { "$gt": 9 } },
            doc! {}
        ));
        assert!(!served(doc! { "region": "eu", "status": "live" }, doc! {}));
    }

    #[test]
    fn equality_after_the_range_is_bounded_too() {
        // {status, seats, odo}: equality, range, equality.
        assert!(served(
            doc! { "status": "a", "seats": { "$gt": 2 }, "odo": 7 },
            doc! {}
        ));
        assert!(served(doc! { "status": "a", "odo": 7 }, doc! {}));
        // Nothing bounds the scan before the left-over equality.
        assert!(!served(doc! { "odo": 7 }, doc! {}));
        assert!(!served(doc! { "odo": 7 }, doc! { "status": 1 }));
    }
}
