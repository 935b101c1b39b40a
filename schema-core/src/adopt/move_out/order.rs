//! The order of two items by their order field's value, as the server
//! sorts them: first by the kind of value (null < numbers < strings <
//! documents < arrays < binary < ObjectIds < booleans < dates < timestamps),
//! then by the value. Numbers of different types compare by value; strings
//! byte by byte (no collation). Documents, arrays and binary values tie
//! with their kind: an order field holds a number, a date, a string or an
//! ObjectId.

use std::cmp::Ordering;

use bson::Bson;

/// Where the server sorts a value of this kind among the others.
fn rank(value: &Bson) -> u8 {
    match value {
        Bson::MinKey => 0,
        Bson::Null | Bson::Undefined => 1,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => 2,
        Bson::String(_) | Bson::Symbol(_) => 3,
        Bson::Document(_) => 4,
        Bson::Array(_) => 5,
        Bson::Binary(_) => 6,
        Bson::ObjectId(_) => 7,
        Bson::Boolean(_) => 8,
        Bson::DateTime(_) => 9,
        Bson::Timestamp(_) => 10,
        Bson::RegularExpression(_) => 11,
        Bson::MaxKey => 13,
        _ => 12,
    }
}

/// A number as an exact integer when it is one, else as a float.
enum Num {
    Int(i64),
    Float(f64),
}

fn number(value: &Bson) -> Num {
    match value {
        Bson::Int32(n) => Num::Int(i64::from(*n)),
        Bson::Int64(n) => Num::Int(*n),
        Bson::Double(f) => Num::Float(*f),
        Bson::Decimal128(d) => Num::Float(d.to_string().parse().unwrap_or(f64::NAN)),
        _ => Num::Float(f64::NAN),
    }
}

/// `a` against `b`, as the server sorts them (see the module docs).
pub(super) fn compare(a: &Bson, b: &Bson) -> Ordering {
    let by_rank = rank(a).cmp(&rank(b));
    if by_rank != Ordering::Equal {
        return by_rank;
    }
    match (a, b) {
        (Bson::String(x) | Bson::Symbol(x), Bson::String(y) | Bson::Symbol(y)) => x.cmp(y),
        (Bson::ObjectId(x), Bson::ObjectId(y)) => x.bytes().cmp(&y.bytes()),
        (Bson::Boolean(x), Bson::Boolean(y)) => x.cmp(y),
        (Bson::DateTime(x), Bson::DateTime(y)) => x.cmp(y),
        (Bson::Timestamp(x), Bson::Timestamp(y)) => {
            (x.time, x.increment).cmp(&(y.time, y.increment))
        }
        _ if rank(a) == 2 => match (number(a), number(b)) {
            (Num::Int(x), Num::Int(y)) => x.cmp(&y),
            (Num::Int(x), Num::Float(y)) => (x as f64).total_cmp(&y),
            (Num::Float(x), Num::Int(y)) => x.total_cmp(&(y as f64)),
            (Num::Float(x), Num::Float(y)) => x.total_cmp(&y),
        },
        _ => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::compare;
    use bson::{Bson, DateTime};
    use std::cmp::Ordering::*;

    #[test]
    fn values_sort_as_the_server_sorts_them() {
        assert_eq!(compare(&Bson::Int32(2), &Bson::Int64(10)), Less);
        assert_eq!(compare(&Bson::Double(2.5), &Bson::Int32(2)), Greater);
        assert_eq!(compare(&Bson::Int64(7), &Bson::Double(7.0)), Equal);
        assert_eq!(compare(&Bson::Null, &Bson::Int32(-1)), Less);
        assert_eq!(compare(&Bson::Int32(1_000), &"a".into()), Less);
        assert_eq!(compare(&"b".into(), &"ab".into()), Greater);
        let (early, late) = (DateTime::from_millis(1), DateTime::from_millis(2));
        assert_eq!(compare(&early.into(), &late.into()), Less);
    }
}
