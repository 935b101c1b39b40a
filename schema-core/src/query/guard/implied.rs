//! Whether a branch's conditions imply a partial index's filter: then every
//! document the branch matches is in the index, and the index serves it.
//!
//! The filter is read in the grammar MongoDB allows for one: a conjunction
//! (top-level fields, `$and`) of equalities, `$exists: true`, `$gt`, `$gte`,
//! `$lt`, `$lte` and `$type`. Each of its conditions must follow from a
//! condition of the branch on the same field:
//!
//! - `{f: v}`: the branch tests `f` equal to `v` (or `$in` of `v` alone);
//! - `{f: {$exists: true}}`: every document the branch matches has `f`;
//! - `{f: {$gt: a}}` and the other comparisons: the branch's equality, `$in`
//!   or bound on `f` lies within (`{f: {$gt: 5}}` implies `{f: {$gte: 1}}`),
//!   compared as the server orders numbers, strings and dates;
//! - `{f: {$type: t}}`: the branch tests `$type: t`.
//!
//! Anything else (`$or`, `$in` in the filter, values of other types) is
//! taken as not implied: the guard then does not count on the index.

use std::cmp::Ordering;

use bson::{Bson, Document as BsonDocument};

use super::branch::Branch;

/// Whether every document `branch` matches passes `filter`.
pub(super) fn implies(branch: &Branch, filter: &BsonDocument) -> bool {
    filter.iter().all(|(key, value)| match key.as_str() {
        "$and" => value.as_array().is_some_and(|items| {
            items
                .iter()
                .all(|item| item.as_document().is_some_and(|d| implies(branch, d)))
        }),
        op if op.starts_with('$') => false,
        field => match value {
            Bson::Document(ops) if ops.keys().next().is_some_and(|k| k.starts_with('$')) => ops
                .iter()
                .all(|(op, arg)| condition_implied(branch, field, op, arg)),
            plain => condition_implied(branch, field, "$eq", plain),
        },
    })
}

/// The fields a partial filter names (`$and` looked through).
pub(super) fn fields(filter: &BsonDocument) -> Vec<String> {
    let mut out = Vec::new();
    for (key, value) in filter {
        if key == "$and" {
            for item in value.as_array().into_iter().flatten() {
                if let Some(d) = item.as_document() {
                    out.extend(fields(d));
                }
            }
        } else if !key.starts_with('$') {
            out.push(key.clone());
        }
    }
    out
}

/// Whether `branch` implies `{field: {op: arg}}`.
fn condition_implied(branch: &Branch, field: &str, op: &str, arg: &Bson) -> bool {
    if op == "$exists" {
        return arg.as_bool() == Some(true) && branch.has(field);
    }
    let Some(tested) = branch.field(field) else {
        return false;
    };
    tested
        .conditions
        .iter()
        .any(|&(mine, value)| follows(mine, value, op, arg))
}

/// Whether `{f: {mine: value}}` implies `{f: {op: arg}}`.
fn follows(mine: &str, value: &Bson, op: &str, arg: &Bson) -> bool {
    match (mine, op) {
        ("$type", "$type") => value == arg,
        ("$eq", "$eq") => same(value, arg),
        ("$in", "$eq") => value
            .as_array()
            .is_some_and(|vs| !vs.is_empty() && vs.iter().all(|v| same(v, arg))),
        ("$eq", _) => within(value, op, arg),
        ("$in", _) => value
            .as_array()
            .is_some_and(|vs| !vs.is_empty() && vs.iter().all(|v| within(v, op, arg))),
        // A bound: `{$gt: 5}` implies `{$gt: 1}` and `{$gte: 5}`.
        ("$gt" | "$gte", "$gt" | "$gte") | ("$lt" | "$lte", "$lt" | "$lte") => {
            let Some(order) = compare(value, arg) else {
                return false;
            };
            let exclusive_mine = mine == "$gt" || mine == "$lt";
            let lower = op == "$gt" || op == "$gte";
            let strict = op == "$gt" || op == "$lt";
            match (lower, order) {
                (true, Ordering::Greater) | (false, Ordering::Less) => true,
                (_, Ordering::Equal) => !strict || exclusive_mine,
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether the value `v` passes `{op: arg}`.
fn within(v: &Bson, op: &str, arg: &Bson) -> bool {
    let Some(order) = compare(v, arg) else {
        return false;
    };
    match op {
        "$gt" => order == Ordering::Greater,
        "$gte" => order != Ordering::Less,
        "$lt" => order == Ordering::Less,
        "$lte" => order != Ordering::Greater,
        _ => false,
    }
}

/// Equal values, numbers compared by value whatever their BSON type.
fn same(a: &Bson, b: &Bson) -> bool {
    compare(a, b) == Some(Ordering::Equal) || a == b
}

/// The server's order of two values of one kind (numbers, strings, dates,
/// object ids); `None` across kinds, which the guard does not reason about.
fn compare(a: &Bson, b: &Bson) -> Option<Ordering> {
    fn number(v: &Bson) -> Option<f64> {
        match v {
            Bson::Int32(n) => Some(f64::from(*n)),
            Bson::Int64(n) => Some(*n as f64),
            Bson::Double(n) => Some(*n),
            _ => None,
        }
    }
    match (a, b) {
        (Bson::String(x), Bson::String(y)) => Some(x.cmp(y)),
        (Bson::DateTime(x), Bson::DateTime(y)) => Some(x.cmp(y)),
        (Bson::ObjectId(x), Bson::ObjectId(y)) => Some(x.cmp(y)),
        _ => number(a)?.partial_cmp(&number(b)?),
    }
}

#[cfg(test)]
mod tests {
    use super::super::branch::branches;
    use super::*;
    use bson::doc;

    fn implied(query: BsonDocument, filter: BsonDocument) -> bool {
        branches(&query, true).iter().all(|b| implies(b, &filter))
    }

    #[test]
    fn existence_equality_comparisons_and_types() {
        let exists = doc! { "score": { "$exists": true } };
        assert!(implied(doc! { "score": { "$gt": 5 } }, exists.clone()));
        assert!(implied(doc! { "score": 3 }, exists.clone()));
        assert!(implied(
            doc! { "score": { "$exists": true } },
            exists.clone()
        ));
        assert!(!implied(doc! { "score": null }, exists.clone()));
        assert!(!implied(doc! { "score": { "$ne": 1 } }, exists.clone()));
        assert!(!implied(doc! { "score": { "$gte": null } }, exists.clone()));
        assert!(!implied(doc! { "other": 1 }, exists));

        let live = doc! { "status": "live" };
        assert!(implied(doc! { "status": "live", "x": 1 }, live.clone()));
        assert!(implied(
            doc! { "status": { "$in": ["live"] } },
            live.clone()
        ));
        assert!(!implied(
            doc! { "status": { "$in": ["live", "draft"] } },
            live.clone()
        ));
        assert!(!implied(doc! { "status": "draft" }, live));

        let over = doc! { "score": { "$gt": 10 } };
        assert!(implied(doc! { "score": { "$gt": 10 } }, over.clone()));
        assert!(implied(doc! { "score": { "$gte": 11 } }, over.clone()));
        assert!(implied(doc! { "score": 11.5 }, over.clone()));
        assert!(implied(
            doc! { "score": { "$in": [11, 20_i64] } },
            over.clone()
        ));
        assert!(!implied(doc! { "score": { "$gte": 10 } }, over.clone()));
        assert!(!implied(doc! { "score": { "$lt": 20 } }, over.clone()));
        assert!(!implied(doc! { "score": "11" }, over));
        let at_most = doc! { "score": { "$lte": 10 } };
        assert!(implied(doc! { "score": { "$lt": 10 } }, at_most.clone()));
        assert!(implied(doc! { "score": { "$lte": 10 } }, at_most.clone()));
        assert!(!implied(doc! { "score": { "$lte": 11 } }, at_most));

        let typed = doc! { "score": { "$type": "int" } };
        assert!(implied(doc! { "score": { "$type": "int" } }, typed.clone()));
        assert!(!implied(doc! { "score": 1 }, typed));
    }

    #[test]
    fn a_conjunction_needs_every_condition_and_or_every_branch() {
        let filter = doc! { "$and": [{ "status": "live" }, { "score": { "$gte": 0 } }] };
        assert!(implied(
            doc! { "status": "live", "score": { "$gt": 3 } },
            filter.clone()
        ));
        assert!(!implied(doc! { "status": "live" }, filter.clone()));
        assert!(!implied(
            doc! { "$or": [{ "status": "live", "score": 1 }, { "status": "live" }] },
            filter
        ));
        // What the filter grammar reads as unknown is not implied.
        assert!(!implied(doc! { "a": 1 }, doc! { "$or": [{ "a": 1 }] }));
        assert!(!implied(doc! { "a": 1 }, doc! { "a": { "$in": [1] } }));
    }
}
