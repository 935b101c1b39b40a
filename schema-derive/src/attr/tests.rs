//! Unit tests of the attribute parser.

use syn::Attribute;

use super::*;
use crate::ctxt::Ctxt;

fn attrs(src: &str) -> Vec<Attribute> {
    match syn::parse_str::<syn::DeriveInput>(&format!("{src} struct S;")) {
        Ok(input) => input.attrs,
        Err(_) => Vec::new(),
    }
}

fn errors(cx: Ctxt) -> String {
    match cx.finish() {
        Ok(()) => String::new(),
        Err(tokens) => tokens.to_string(),
    }
}

#[test]
fn embed_max() {
    let cx = Ctxt::new();
    let (kind, _) = field(&cx, &attrs("#[embed(max = 10)]"));
    assert!(matches!(
        kind,
        FieldKind::Embed(EmbedAttr { max: Some(10), .. })
    ));
    assert_eq!(errors(cx), "");
}

#[test]
fn embed_errors_are_all_reported() {
    for (src, message) in [
        ("#[embed(max = 0)]", "must be at least 1"),
        ("#[embed(max = -3)]", "must be an integer from 1"),
        ("#[embed(max = \"10\")]", "found a string"),
        ("#[embed(max = 1.5)]", "found a float"),
        ("#[embed]", "needs `max = N`"),
        ("#[embed(mxa = 3)]", "did you mean `max`?"),
        (
            "#[embed(max = 3, keep = \"latest\")]",
            "\\\"newest\\\" or \\\"oldest\\\"",
        ),
        ("#[embed(unbounded = \"\")]", "needs a reason"),
    ] {
        let cx = Ctxt::new();
        field(&cx, &attrs(src));
        let errs = errors(cx);
        assert!(errs.contains(message), "{src}: {errs}");
    }
}

#[test]
fn index_with_everything() {
    let cx = Ctxt::new();
    let parsed = container(
        &cx,
        &attrs(
            r#"#[document(collection = "events", index(keys(user_id = asc, "meta.at" = -1), name = "by_user", unique, sparse, expire_after = 3600, partial(status = "active", age(gt = 18, lte = 65), email(exists = true))))]"#,
        ),
    );
    assert_eq!(errors(cx), "");
    assert_eq!(parsed.indexes.len(), 1);
    let index = &parsed.indexes[0];
    assert_eq!(index.keys.len(), 2);
    assert_eq!(index.keys[1].dir, Dir::Desc);
    assert!(index.unique && index.sparse);
    assert_eq!(index.expire_after.map(|(s, _)| s), Some(3600));
    assert_eq!(index.partial.len(), 3);
}

#[test]
fn container_typo() {
    let cx = Ctxt::new();
    container(&cx, &attrs(r#"#[document(colection = "x")]"#));
    assert!(errors(cx).contains("did you mean `collection`?"));
}

#[test]
fn many_to_many_rules() {
    let cx = Ctxt::new();
    field(&cx, &attrs("#[many_to_many(two_sided, to = Course)]"));
    assert!(errors(cx).contains("needs `inverse = field`"));
    let cx = Ctxt::new();
    field(
        &cx,
        &attrs("#[many_to_many(one_sided, to = Course, inverse = x)]"),
    );
    assert!(errors(cx).contains("only applies to `two_sided`"));
}
