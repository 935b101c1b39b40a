//! The matching rules of the drivers' unified test format
//! (mongodb/specifications, `unified-test-format`), for tests that replay a
//! specification's scenarios: an expected document matches an actual one
//! when every expected field matches; extra fields are allowed in a root
//! document only; numbers match by value whatever their BSON type; and the
//! special operators the transaction scenarios use are understood:
//! `{ $$exists: bool }`, `{ $$unsetOrMatches: v }` and
//! `{ $$sessionLsid: name }` (the lsid of the session the caller names).

use bson::{Bson, Document};

/// Whether `actual` matches the root document `expected` (see the module
/// docs); `lsid` gives the lsid of a session named in `$$sessionLsid`.
/// The error says where the first mismatch is.
pub fn matches_root(
    expected: &Document,
    actual: &Document,
    lsid: &dyn Fn(&str) -> Option<Document>,
) -> Result<(), String> {
    Matcher { lsid }.document(expected, actual, true, "")
}

struct Matcher<'a> {
    lsid: &'a dyn Fn(&str) -> Option<Document>,
}

impl Matcher<'_> {
    fn document(
        &self,
        expected: &Document,
        actual: &Document,
        root: bool,
        at: &str,
    ) -> Result<(), String> {
        for (key, want) in expected {
            let path = format!("{at}.{key}");
            let got = actual.get(key);
            if let Some(exists) = operator(want, "$$exists") {
                let should = exists.as_bool().unwrap_or(true);
                if should != got.is_some() {
                    return Err(format!(
                        "{path}: expected it to be {}, got {got:?}",
                        if should { "present" } else { "absent" }
                    ));
                }
                continue;
            }
            if let Some(inner) = operator(want, "$$unsetOrMatches") {
                match got {
                    None => continue,
                    Some(got) => {
                        self.value(inner, got, &path)?;
                        continue;
                    }
                }
            }
            match got {
                None => return Err(format!("{path}: missing, expected {want}")),
                Some(got) => self.value(want, got, &path)?,
            }
        }
        if !root {
            if let Some(extra) = actual.keys().find(|k| !expected.contains_key(*k)) {
                return Err(format!("{at}.{extra}: not expected in a nested document"));
            }
        }
        Ok(())
    }

    fn value(&self, expected: &Bson, actual: &Bson, at: &str) -> Result<(), String> {
        if let Some(name) = operator(expected, "$$sessionLsid") {
            let name = name.as_str().unwrap_or_default();
            let lsid = (self.lsid)(name).ok_or_else(|| format!("{at}: no session {name}"))?;
            return match actual {
                Bson::Document(d) if *d == lsid => Ok(()),
                other => Err(format!("{at}: expected the lsid of {name}, got {other}")),
            };
        }
        if let Some(inner) = operator(expected, "$$unsetOrMatches") {
            return self.value(inner, actual, at);
        }
        match (expected, actual) {
            (Bson::Document(e), Bson::Document(a)) => self.document(e, a, false, at),
            (Bson::Array(e), Bson::Array(a)) => {
                if e.len() != a.len() {
                    return Err(format!("{at}: expected {} items, got {}", e.len(), a.len()));
                }
                for (i, (e, a)) in e.iter().zip(a).enumerate() {
                    match (e, a) {
                        // Documents in arrays are root-like in the format
                        // only for operations' results; commands' documents
                        // must match exactly.
                        (Bson::Document(e), Bson::Document(a)) => {
                            self.document(e, a, false, &format!("{at}[{i}]"))?
                        }
                        _ => self.value(e, a, &format!("{at}[{i}]"))?,
                    }
                }
                Ok(())
            }
            _ if number(expected).is_some() && number(expected) == number(actual) => Ok(()),
            _ if expected == actual => Ok(()),
            _ => Err(format!("{at}: expected {expected}, got {actual}")),
        }
    }
}

/// The argument of `{ name: arg }` when `value` is exactly that.
fn operator<'a>(value: &'a Bson, name: &str) -> Option<&'a Bson> {
    match value {
        Bson::Document(d) if d.len() == 1 => d.get(name),
        _ => None,
    }
}

fn number(value: &Bson) -> Option<f64> {
    match value {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(n) => Some(*n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn check(expected: Document, actual: Document) -> Result<(), String> {
        matches_root(&expected, &actual, &|name| {
            (name == "session0").then(|| doc! { "id": 7 })
        })
    }

    #[test]
    fn the_operators_and_the_root_rule() {
        let actual = doc! {
            "insert": "test", "documents": [{ "_id": 1 }], "txnNumber": 1_i64,
            "lsid": { "id": 7 }, "readConcern": { "afterClusterTime": 5 }, "extra": true,
        };
        check(
            doc! {
                "insert": "test", "documents": [{ "_id": 1 }], "txnNumber": 1,
                "lsid": { "$$sessionLsid": "session0" }, "writeConcern": { "$$exists": false },
                "readConcern": { "afterClusterTime": { "$$exists": true } },
            },
            actual.clone(),
        )
        .unwrap();
        // Nested documents match exactly; absent fields must be absent.
        assert!(check(doc! { "readConcern": {} }, actual.clone()).is_err());
        assert!(check(doc! { "extra": { "$$exists": false } }, actual.clone()).is_err());
        assert!(check(doc! { "txnNumber": 2 }, actual.clone()).is_err());
        assert!(check(doc! { "lsid": { "$$sessionLsid": "session1" } }, actual).is_err());
    }
}
