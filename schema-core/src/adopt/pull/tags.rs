//! Polymorphic sub-documents: a string field of few values (a tag) that
//! decides the keys of a sub-document. The audit finds a tag beside its
//! sub-document (seed 004's `type` beside `details`); the walk finds one
//! inside it (`{details: {kind: "book", ..}}`), so that a second walk can
//! keep the sub-document's fields per tag value.

use super::infer::{Kind, Node, Object, Splits, Tag};

/// The tag the audit found for the sub-document at `path`, when it is
/// beside it (the same prefix).
pub(super) fn beside(tag: &str, path: &str) -> Option<Tag> {
    let parent = |p: &str| {
        p.rsplit_once('.')
            .map_or(String::new(), |(a, _)| a.to_owned())
    };
    let key = tag.rsplit_once('.').map_or(tag, |(_, k)| k);
    (parent(tag) == parent(path)).then(|| Tag::Beside(key.to_owned()))
}

/// The sub-document paths of `object` whose keys vary, each with the tag
/// of fewest values inside it.
pub(super) fn detect(object: &Object) -> Splits {
    let mut splits = Splits::new();
    find(object, "", &mut splits);
    splits
}

fn find(object: &Object, prefix: &str, out: &mut Splits) {
    for (key, node) in &object.fields {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        if let Some(sub) = only(node, Kind::Document).and_then(|n| n.object.as_deref()) {
            if varies(sub) {
                if let Some(tag) = best(sub.fields.iter(), sub.count) {
                    out.insert(path.clone(), Tag::Inside(tag));
                }
            }
            find(sub, &path, out);
        }
        let items = only(node, Kind::Array)
            .and_then(|n| n.array.as_deref())
            .and_then(|a| only(&a.items, Kind::Document))
            .and_then(|n| n.object.as_deref());
        if let Some(sub) = items {
            if varies(sub) {
                if let Some(tag) = best(sub.fields.iter(), sub.count) {
                    out.insert(path.clone(), Tag::Inside(tag));
                }
            }
            find(sub, &path, out);
        }
    }
}

/// `node` when it held `kind` only (nulls aside).
fn only(node: &Node, kind: Kind) -> Option<&Node> {
    node.kinds().eq([kind]).then_some(node)
}

/// Whether some key is missing from some of the sub-documents.
fn varies(object: &Object) -> bool {
    object.fields.values().any(|n| n.present < object.count)
}

/// The field that looks most like a tag: a string in every one of `count`
/// documents, of 2 to [`MAX_VALUES`](super::infer::MAX_VALUES) values, the
/// fewest values first.
fn best<'a>(fields: impl Iterator<Item = (&'a String, &'a Node)>, count: u64) -> Option<String> {
    fields
        .filter(|(_, n)| n.present == count && n.nulls == 0 && only(n, Kind::String).is_some())
        .filter_map(|(k, n)| {
            let values = n.values.few_strings()?;
            (values.len() >= 2).then_some((values.len(), k.clone()))
        })
        .min()
        .map(|(_, k)| k)
}

/// Whether a split by a tag tells shapes apart: the variants' keys differ,
/// and fewer keys are missing per variant than without the split.
pub(super) fn tells_apart(object: &Object) -> bool {
    let Some(variants) = object.variants.as_deref() else {
        return false;
    };
    if variants.unsplit > 0 || variants.by_value.len() < 2 {
        return false;
    }
    let keys: Vec<Vec<&String>> = variants
        .by_value
        .values()
        .map(|o| o.fields.keys().collect())
        .collect();
    let differ = keys.windows(2).any(|w| w[0] != w[1]);
    let missing = |o: &Object| o.fields.values().filter(|n| n.present < o.count).count();
    let split: usize = variants.by_value.values().map(missing).sum();
    differ && split < missing(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{doc, RawDocumentBuf};

    fn walk(docs: &[bson::Document], splits: &Splits) -> Object {
        let mut root = Object::default();
        for d in docs {
            root.add(&RawDocumentBuf::try_from(d).unwrap(), "", splits);
        }
        root
    }

    #[test]
    fn a_tag_inside_a_varying_sub_document_is_found_and_tells_apart() {
        let docs: Vec<bson::Document> = (0..6)
            .map(|i| {
                if i % 2 == 0 {
                    doc! { "name": format!("n{i}"), "details": { "type": "book", "isbn": "1" } }
                } else {
                    doc! { "name": format!("n{i}"), "details": { "type": "dvd", "director": "d" } }
                }
            })
            .collect();
        let first = walk(&docs, &Splits::new());
        let splits = detect(&first);
        assert_eq!(
            splits,
            Splits::from([("details".to_owned(), Tag::Inside("type".to_owned()))])
        );
        let second = walk(&docs, &splits);
        let details = second.fields["details"].object.as_deref().unwrap();
        assert!(tells_apart(details));
    }

    #[test]
    fn the_audits_tag_is_beside_its_sub_document_when_they_share_a_prefix() {
        assert_eq!(beside("type", "details"), Some(Tag::Beside("type".into())));
        assert_eq!(
            beside("a.type", "a.details"),
            Some(Tag::Beside("type".into()))
        );
        assert_eq!(beside("type", "a.details"), None);
    }

    #[test]
    fn sub_documents_of_one_shape_are_not_split() {
        let docs = [
            doc! { "kind": "a", "p": { "x": 1 } },
            doc! { "kind": "b", "p": { "x": 2 } },
        ];
        assert!(detect(&walk(&docs, &Splits::new())).is_empty());
    }
}
