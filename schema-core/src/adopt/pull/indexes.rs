//! A collection's indexes, as the server lists them, written back as the
//! derive's `index(..)` declarations, so that a plan of the pulled models
//! finds each one where it is.

use std::collections::BTreeMap;

use bson::{Bson, Document};

use crate::model::index::name_of_key_document;
use crate::model::index::server::{same_key_order, ServerIndex};

/// The `index(..)` declaration of `index`: `Ok(None)` for `_id`'s and for
/// one a reference or id array of the model declares already (`declared`
/// holds their key documents), `Err` with the reason when the derive
/// cannot say it.
pub(super) fn declare(
    index: &ServerIndex,
    fields: &BTreeMap<String, String>,
    declared: &[Document],
) -> Result<Option<String>, String> {
    let default_name = name_of_key_document(&index.keys);
    if index.name == "_id_" {
        return Ok(None);
    }
    let plain = !index.unique
        && !index.sparse
        && !index.hidden
        && index.expire_after.is_none()
        && index.partial_filter.is_none()
        && index.collation.is_none();
    if plain
        && index.name == default_name
        && declared
            .iter()
            .any(|keys| same_key_order(keys, &index.keys))
    {
        return Ok(None);
    }
    if index.text.is_some() {
        return Err("a text index: declare it by hand, with its weights and language".to_owned());
    }
    let mut keys = Vec::new();
    for (key, value) in &index.keys {
        let dir = match value {
            Bson::String(kind) if kind == "hashed" => "hashed".to_owned(),
            Bson::String(kind) if kind == "2dsphere" => "\"2dsphere\"".to_owned(),
            Bson::String(kind) => return Err(format!("a `{kind}` key, which the derive has not")),
            other => match other.as_f64().or_else(|| number(other)) {
                Some(d) if d > 0.0 => "asc".to_owned(),
                Some(d) if d < 0.0 => "desc".to_owned(),
                _ => return Err(format!("the key `{key}: {other}`")),
            },
        };
        keys.push(format!("{} = {dir}", key_name(key, fields)));
    }
    let mut parts = vec![format!("keys({})", keys.join(", "))];
    if index.unique {
        parts.push("unique".to_owned());
    }
    if index.sparse {
        parts.push("sparse".to_owned());
    }
    if index.hidden {
        parts.push("hidden".to_owned());
    }
    if index.name != default_name {
        parts.push(format!("name = {:?}", index.name));
    }
    if let Some(after) = index.expire_after {
        parts.push(format!("expire_after = {}", after.as_secs()));
    }
    if let Some(filter) = &index.partial_filter {
        parts.push(partial(filter, fields)?);
    }
    if let Some(collation) = &index.collation {
        let shown = collation.to_string();
        return Err(format!(
            "a collation ({shown}): add `collation(locale = .., strength = ..)` by hand"
        ));
    }
    Ok(Some(format!("index({})", parts.join(", "))))
}

fn number(value: &Bson) -> Option<f64> {
    match value {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        _ => None,
    }
}

/// A key by its Rust field name when it is a root field, else by its
/// stored path as a string.
fn key_name(key: &str, fields: &BTreeMap<String, String>) -> String {
    match fields.get(key) {
        Some(rust) => rust.clone(),
        None => format!("{key:?}"),
    }
}

/// `partial(..)` for a filter of equalities and comparisons.
fn partial(filter: &Document, fields: &BTreeMap<String, String>) -> Result<String, String> {
    let refused = || format!("the partial filter {filter}, which `partial(..)` cannot say");
    let mut conds = Vec::new();
    for (key, value) in filter {
        if key.starts_with('$') {
            return Err(refused());
        }
        let name = key_name(key, fields);
        match value {
            Bson::Document(ops) => {
                let mut tests = Vec::new();
                for (op, v) in ops {
                    let op = match op.as_str() {
                        "$exists" => "exists",
                        "$eq" => "eq",
                        "$gt" => "gt",
                        "$gte" => "gte",
                        "$lt" => "lt",
                        "$lte" => "lte",
                        "$type" => "type",
                        _ => return Err(refused()),
                    };
                    tests.push(format!("{op} = {}", literal(v).ok_or_else(refused)?));
                }
                conds.push(format!("{name}({})", tests.join(", ")));
            }
            v => conds.push(format!("{name} = {}", literal(v).ok_or_else(refused)?)),
        }
    }
    Ok(format!("partial({})", conds.join(", ")))
}

fn literal(value: &Bson) -> Option<String> {
    Some(match value {
        Bson::String(s) => format!("{s:?}"),
        Bson::Int32(n) => n.to_string(),
        Bson::Int64(n) => n.to_string(),
        Bson::Double(d) if d.is_finite() => format!("{d:?}"),
        Bson::Boolean(b) => b.to_string(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn index(keys: Document, name: &str) -> ServerIndex {
        let model = mongodb::IndexModel::builder()
            .keys(keys)
            .options(
                mongodb::options::IndexOptions::builder()
                    .name(name.to_owned())
                    .build(),
            )
            .build();
        ServerIndex::from_model(&model)
    }

    #[test]
    fn keys_by_field_or_path_and_options_only_when_set() {
        let fields = BTreeMap::from([("authorId".to_owned(), "author_id".to_owned())]);
        let i = index(doc! { "authorId": 1, "at": -1 }, "authorId_1_at_-1");
        assert_eq!(
            declare(&i, &fields, &[]).unwrap().unwrap(),
            "index(keys(author_id = asc, \"at\" = desc))"
        );
        let mut named = index(doc! { "sku": 1 }, "sku_unique");
        named.unique = true;
        assert_eq!(
            declare(&named, &fields, &[]).unwrap().unwrap(),
            "index(keys(\"sku\" = asc), unique, name = \"sku_unique\")"
        );
        assert_eq!(
            declare(&index(doc! { "_id": 1 }, "_id_"), &fields, &[]),
            Ok(None)
        );
        let reference = index(doc! { "authorId": 1, "_id": 1 }, "authorId_1__id_1");
        let declared = [doc! { "authorId": 1, "_id": 1 }];
        assert_eq!(declare(&reference, &fields, &declared), Ok(None));
    }

    #[test]
    fn partial_filters_of_comparisons_are_said() {
        let fields = BTreeMap::new();
        let mut i = index(doc! { "score": -1 }, "score_-1");
        i.partial_filter = Some(doc! { "score": { "$exists": true }, "status": "active" });
        assert_eq!(
            declare(&i, &fields, &[]).unwrap().unwrap(),
            "index(keys(\"score\" = desc), partial(\"score\"(exists = true), \"status\" = \"active\"))"
        );
        i.partial_filter = Some(doc! { "$or": [] });
        assert!(declare(&i, &fields, &[]).is_err());
    }
}
