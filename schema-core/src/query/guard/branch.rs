//! A filter read as the guard reads it: a disjunction of [`Branch`]es (one
//! when there is no `$or`), each the fields it tests, how, and what no index
//! bounds.

use std::borrow::Cow;

use bson::{Bson, Document as BsonDocument};

/// The most `$or` branches (after distributing nested `$or`s and `$and`s)
/// the guard checks; a filter with more is treated as one no index serves.
const MAX_BRANCHES: usize = 64;

/// How a query tests one field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    /// Equality (`null` when the value is null or `$in` holds null).
    Eq { null: bool },
    /// A range or another test an index scans (`$gt`, `$ne`, `$regex`...).
    Range,
    /// A geo operator (`$near`, `$nearSphere`, `$geoWithin`,
    /// `$geoIntersects`): only a 2dsphere index on the field serves it.
    Geo,
}

impl Kind {
    /// Two tests of one field in a conjunction: equality wins over a range.
    fn and(self, other: Kind) -> Kind {
        match (self, other) {
            (Kind::Eq { null: a }, Kind::Eq { null: b }) => Kind::Eq { null: a && b },
            (eq @ Kind::Eq { .. }, _) | (_, eq @ Kind::Eq { .. }) => eq,
            (Kind::Geo, _) | (_, Kind::Geo) => Kind::Geo,
            (Kind::Range, Kind::Range) => Kind::Range,
        }
    }

    /// Equality that a sparse index (which leaves out documents without the
    /// field) still answers in full when `sparse`.
    pub(super) fn is_eq(self, sparse: bool) -> bool {
        match self {
            Kind::Eq { null } => !(sparse && null),
            Kind::Range | Kind::Geo => false,
        }
    }
}

/// One field a branch tests: how, whether a document missing the field can
/// match, and the conditions themselves (`(operator, value)`, `$eq` for a
/// plain value), for the partial-filter check.
#[derive(Debug, Clone)]
pub(super) struct Tested<'f> {
    /// The stored path: the filter's own key, or made from a prefix inside
    /// an `$elemMatch`.
    pub(super) path: Cow<'f, str>,
    pub(super) kind: Kind,
    /// Every document that matches has the field (it may hold null): a
    /// sparse index holds all of them.
    pub(super) present: bool,
    /// Kept only when the model has a partial index (none to allocate
    /// otherwise).
    pub(super) conditions: Vec<(&'f str, &'f Bson)>,
}

/// One conjunction of conditions: the whole filter, or one branch of its `$or`s.
#[derive(Debug, Clone, Default)]
pub(super) struct Branch<'f> {
    /// Whether to keep each field's conditions (for a partial index).
    keep: bool,
    /// Each field tested, with how (equality wins over a range on one field).
    pub(super) fields: Vec<Tested<'f>>,
    /// The operators no index bounds (`$where`, `$size` on `tags`...).
    pub(super) blockers: Vec<String>,
    /// The tests applied to the documents the other conditions find
    /// (`$elemMatch`, `$nor`, `$expr`): served when those are.
    pub(super) residual: Vec<String>,
    /// A `$text` search: only the collection's text index serves it.
    pub(super) text: bool,
}

impl<'f> Branch<'f> {
    pub(super) fn blocked(what: String) -> Self {
        Branch {
            blockers: vec![what],
            ..Branch::default()
        }
    }

    pub(super) fn field(&self, path: &str) -> Option<&Tested<'f>> {
        self.fields.iter().find(|f| f.path == path)
    }

    pub(super) fn kind(&self, path: &str) -> Option<Kind> {
        self.field(path).map(|f| f.kind)
    }

    /// Whether every document the branch matches has the field `path`.
    pub(super) fn has(&self, path: &str) -> bool {
        self.field(path).is_some_and(|f| f.present)
    }

    pub(super) fn fields_of(&self, which: impl Fn(&Kind) -> bool) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|f| which(&f.kind))
            .map(|f| f.path.as_ref())
            .collect()
    }

    fn add(
        &mut self,
        path: Cow<'f, str>,
        kind: Kind,
        present: bool,
        condition: (&'f str, &'f Bson),
    ) {
        let keep = self.keep;
        match self.fields.iter_mut().find(|f| f.path == path) {
            Some(field) => {
                field.kind = field.kind.and(kind);
                // A conjunction: one condition that needs the field is enough.
                field.present |= present;
                if keep {
                    field.conditions.push(condition);
                }
            }
            None => self.fields.push(Tested {
                path,
                kind,
                present,
                conditions: if keep { vec![condition] } else { Vec::new() },
            }),
        }
    }

    fn merge(&self, other: &Branch<'f>) -> Branch<'f> {
        let mut merged = self.clone();
        merged.absorb(other.clone());
        merged
    }

    /// Adds `other`'s conditions to this branch.
    fn absorb(&mut self, other: Branch<'f>) {
        for f in other.fields {
            match self.fields.iter_mut().find(|mine| mine.path == f.path) {
                Some(mine) => {
                    mine.kind = mine.kind.and(f.kind);
                    mine.present |= f.present;
                    mine.conditions.extend(f.conditions);
                }
                None => self.fields.push(f),
            }
        }
        self.blockers.extend(other.blockers);
        self.residual.extend(other.residual);
        self.text |= other.text;
    }
}

/// The filter as a disjunction of conjunctions (one branch without `$or`);
/// with `keep`, each field's conditions too (for a partial index's filter).
pub(super) fn branches(filter: &BsonDocument, keep: bool) -> Vec<Branch<'_>> {
    conjunction(filter, "", keep)
}

/// Every pair of `left` and `right` merged, or one blocked branch past
/// [`MAX_BRANCHES`].
fn cross<'f>(mut left: Vec<Branch<'f>>, right: Vec<Branch<'f>>) -> Vec<Branch<'f>> {
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
fn conjunction<'f>(doc: &'f BsonDocument, prefix: &str, keep: bool) -> Vec<Branch<'f>> {
    let empty = || Branch {
        keep,
        ..Branch::default()
    };
    let mut out = vec![empty()];
    for (key, value) in doc {
        let parts = match key.as_str() {
            "$comment" => continue,
            "$and" | "$or" => match value.as_array() {
                Some(items) => {
                    let subs = items.iter().map(|item| match item {
                        Bson::Document(d) => conjunction(d, prefix, keep),
                        _ => vec![Branch::blocked(format!(
                            "`{key}` item that is not a document"
                        ))],
                    });
                    if key == "$and" {
                        subs.fold(vec![empty()], cross)
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
            // Tested on the documents the other conditions find: a `!` of a
            // typed filter (`$nor`), a computed comparison (`$expr`).
            "$nor" | "$expr" => vec![Branch {
                residual: vec![format!("`{key}`")],
                ..empty()
            }],
            // Searched in the text index, the other conditions checked on
            // what it finds (inside an `$elemMatch`, nothing bounds it).
            "$text" if prefix.is_empty() => vec![Branch {
                text: true,
                ..empty()
            }],
            op if op.starts_with('$') => vec![Branch::blocked(format!("`{op}`"))],
            // A field's conditions join every branch so far, as a cross
            // with their one branch would, with no branch of their own.
            field => {
                let path = match prefix {
                    "" => Cow::Borrowed(field),
                    prefix => Cow::Owned(format!("{prefix}{field}")),
                };
                out.iter_mut()
                    .for_each(|b| field_conditions(path.clone(), value, b));
                continue;
            }
        };
        out = cross(out, parts);
    }
    out
}

/// Whether a comparison with `value` can match a document without the
/// field: MongoDB compares a missing field as null, so `{$gte: null}`,
/// `{$lte: null}` and comparisons with `MinKey`/`MaxKey` do.
fn compares_missing(value: &Bson) -> bool {
    matches!(value, Bson::Null | Bson::MinKey | Bson::MaxKey)
}

/// Adds one field's condition `value` to `branch`.
fn field_conditions<'f>(path: Cow<'f, str>, value: &'f Bson, branch: &mut Branch<'f>) {
    let ops = match value {
        Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => d,
        other => {
            let null = matches!(other, Bson::Null);
            let condition = ("$eq", other);
            branch.add(path.clone(), Kind::Eq { null }, !null, condition);
            return;
        }
    };
    for (op, arg) in ops {
        let condition = (op.as_str(), arg);
        match op.as_str() {
            "$eq" => {
                let null = matches!(arg, Bson::Null);
                branch.add(path.clone(), Kind::Eq { null }, !null, condition);
            }
            "$in" => {
                let null = arg
                    .as_array()
                    .is_none_or(|a| a.iter().any(|v| matches!(v, Bson::Null)));
                branch.add(path.clone(), Kind::Eq { null }, !null, condition);
            }
            "$all" => branch.add(path.clone(), Kind::Eq { null: false }, true, condition),
            "$gt" | "$gte" | "$lt" | "$lte" => {
                let present = !compares_missing(arg);
                branch.add(path.clone(), Kind::Range, present, condition);
            }
            "$exists" => {
                let present = arg.as_bool().unwrap_or(true);
                branch.add(path.clone(), Kind::Range, present, condition);
            }
            // Never match a missing field: a regex needs a string, a type
            // test a value (a null one for `$type: "null"`).
            "$regex" | "$type" => branch.add(path.clone(), Kind::Range, true, condition),
            "$options" => branch.add(path.clone(), Kind::Range, false, condition),
            // Match documents without the field too.
            "$ne" | "$nin" | "$not" => branch.add(path.clone(), Kind::Range, false, condition),
            // Checked on the documents the rest of the query finds: the
            // test server bounds no index with it.
            "$elemMatch" => branch.residual.push(format!("`$elemMatch` on `{path}`")),
            // Never match a missing field.
            "$near" | "$nearSphere" | "$geoWithin" | "$geoIntersects" => {
                branch.add(path.clone(), Kind::Geo, true, condition)
            }
            // `$near`'s own options, beside it.
            "$maxDistance" | "$minDistance" => {}
            other => branch.blockers.push(format!("`{other}` on `{path}`")),
        }
    }
}
