//! Integer operands in both widths. A deterministic ciphertext carries the
//! value's BSON type: `7` stored as an `int` and `7` stored as a `long`
//! encrypt to different bytes, so an equality on one never finds the
//! other. An `i64` field that an older application wrote as `int` (most
//! drivers write a small integer so) would be found by no typed equality.
//! Before a filter's operands are encrypted, each integer operand of an
//! equality on a deterministic field that fits in 32 bits is asked in both
//! widths (`{f: 7}` becomes `{f: {$in: [int 7, long 7]}}`, `$ne` a `$nin`,
//! and a `$in`'s items both), which the field's index still serves.

use bson::{Bson, Document as BsonDocument};

use crate::model::encrypted::{reach, Reach};
use crate::model::encrypted::{Algorithm, EncryptedSpec};

/// `filter` with its integer equality operands on `fields` (deterministic
/// ones, at the top or inside `$and`, `$or`, `$nor`) in both widths.
pub(super) fn widen(filter: &mut BsonDocument, fields: &'static [EncryptedSpec]) {
    for (key, value) in filter.iter_mut() {
        if matches!(key.as_str(), "$and" | "$or" | "$nor") {
            if let Bson::Array(items) = value {
                for item in items {
                    if let Bson::Document(inner) = item {
                        widen(inner, fields);
                    }
                }
            }
            continue;
        }
        let deterministic = matches!(
            reach(key, fields),
            Some((field, Reach::Is)) if field.algorithm == Algorithm::Deterministic
        );
        if deterministic {
            widen_condition(value);
        }
    }
}

/// One field's condition: a value (equality), or its operators.
fn widen_condition(value: &mut Bson) {
    let Bson::Document(ops) = value else {
        if let Some(both) = both_widths(value) {
            *value = Bson::Document(bson::doc! { "$in": both });
        }
        return;
    };
    if !ops.keys().any(|k| k.starts_with('$')) {
        return;
    }
    for list in ["$in", "$nin"] {
        if let Ok(items) = ops.get_array_mut(list) {
            *items = items
                .drain(..)
                .flat_map(|item| both_widths(&item).unwrap_or_else(|| vec![item]))
                .collect();
        }
    }
    // `$eq` and `$ne` become the lists, unless the lists are there
    // already (the rare filter with both keeps its one width).
    for (single, list) in [("$eq", "$in"), ("$ne", "$nin")] {
        let both = ops.get(single).and_then(both_widths);
        if let (Some(both), false) = (both, ops.contains_key(list)) {
            ops.remove(single);
            ops.insert(list, both);
        }
    }
}

/// An integer that fits in 32 bits, in both widths; `None` for any other
/// value.
fn both_widths(value: &Bson) -> Option<Vec<Bson>> {
    let n = match value {
        Bson::Int32(n) => i64::from(*n),
        Bson::Int64(n) => *n,
        _ => return None,
    };
    let small = i32::try_from(n).ok()?;
    Some(vec![Bson::Int32(small), Bson::Int64(n)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn small_integers_are_asked_in_both_widths() {
        let mut c = Bson::Int64(7);
        widen_condition(&mut c);
        assert_eq!(c, Bson::Document(doc! { "$in": [7_i32, 7_i64] }));
        let mut c = Bson::Document(doc! { "$ne": 7_i32, "$in": [1_i64, 5_000_000_000_i64] });
        widen_condition(&mut c);
        assert_eq!(
            c,
            Bson::Document(
                doc! { "$in": [1_i32, 1_i64, 5_000_000_000_i64], "$nin": [7_i32, 7_i64] }
            )
        );
        let mut c = Bson::Document(doc! { "$eq": 3_i64, "$in": [3_i64] });
        widen_condition(&mut c);
        assert_eq!(
            c,
            Bson::Document(doc! { "$eq": 3_i64, "$in": [3_i32, 3_i64] })
        );
        let mut c = Bson::from("a string");
        widen_condition(&mut c);
        assert_eq!(c, Bson::from("a string"));
    }
}
