//! The audit of each seed's database, written with the raw driver as old
//! code would have: every finding checked exactly, and nothing flagged on
//! the bounded arrays.

use mongodb::Database;
use schema_core::{audit, Audit, AuditOptions, CollectionAudit, ReferenceAudit};

use crate::adopt::seeds;
use crate::support;

async fn fresh(test: &str) -> Database {
    support::fresh_db(&support::client().await, test).await
}

fn collection<'a>(report: &'a Audit, name: &str) -> &'a CollectionAudit {
    report
        .collections
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("{name} in {report}"))
}

/// `collection.path -> to (checked, found, indexed)` of every reference.
fn references(report: &Audit) -> Vec<(String, u64, u64, bool)> {
    report
        .references()
        .map(|r| {
            (
                format!("{}.{} -> {}", r.collection, r.path, r.to),
                r.checked,
                r.found,
                r.indexed,
            )
        })
        .collect()
}

fn reference<'a>(report: &'a Audit, path: &str) -> &'a ReferenceAudit {
    report
        .references()
        .find(|r| format!("{}.{}", r.collection, r.path) == path)
        .unwrap_or_else(|| panic!("{path} in {report}"))
}

/// The arrays no audit may flag, and no polymorphic sub-document where
/// none is.
fn nothing_unbounded_but(report: &Audit, flagged: &[&str]) {
    let unbounded: Vec<String> = report
        .unbounded()
        .map(|a| format!("{}.{}", a.collection, a.path))
        .collect();
    assert_eq!(unbounded, flagged, "{report}");
}

#[tokio::test]
async fn blog_the_unindexed_author_id_and_nothing_else() {
    let db = fresh("audit_blog").await;
    seeds::blog(&db, 500).await;
    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    assert_eq!(
        references(&report),
        [("posts.authorId -> users".to_owned(), 100, 100, false)]
    );
    let author = reference(&report, "posts.authorId");
    assert!(!author.array && author.one_sided.is_none());
    let advice = author.advice().unwrap();
    assert!(
        advice.contains("#[reference(index, to = ..)]") && advice.contains("seed 001"),
        "{advice}"
    );
    nothing_unbounded_but(&report, &[]);
    // Posts are aged by their date field; three tags each do not grow.
    let tags = &collection(&report, "posts").arrays[0];
    assert_eq!(
        (tags.path.as_str(), tags.max, tags.growth.clone()),
        ("tags", 3, None)
    );
    assert_eq!(report.polymorphic().count(), 0);
    assert_eq!(report.findings().len(), 1, "{report}");
    assert!(report.has_findings());
}

#[tokio::test]
async fn school_ten_one_sided_links_of_five_students() {
    let db = fresh("audit_school").await;
    seeds::school(&db, 5).await;
    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    assert_eq!(
        references(&report),
        [
            ("courses.studentIds -> students".to_owned(), 35, 35, false),
            ("students.courseIds -> courses".to_owned(), 8, 8, false),
        ]
    );
    let students = reference(&report, "students.courseIds");
    let one_sided = students.one_sided.as_ref().unwrap();
    assert_eq!(
        (
            one_sided.inverse.as_str(),
            one_sided.links,
            one_sided.one_sided
        ),
        ("studentIds", 80, 10)
    );
    let mut ids = one_sided.ids.clone();
    ids.sort();
    assert_eq!(
        ids,
        [
            "student_0",
            "student_1",
            "student_2",
            "student_3",
            "student_4"
        ]
    );
    let courses = reference(&report, "courses.studentIds");
    let back = courses.one_sided.as_ref().unwrap();
    assert_eq!(
        (back.inverse.as_str(), back.links, back.one_sided),
        ("courseIds", 70, 0)
    );
    let total: u64 = report
        .references()
        .filter_map(|r| r.one_sided.as_ref())
        .map(|o| o.one_sided)
        .sum();
    assert_eq!(total, 10);
    let advice = students.advice().unwrap();
    assert!(
        advice.contains("#[many_to_many(two_sided, ..)]") && advice.contains("schema repair"),
        "{advice}"
    );
    nothing_unbounded_but(&report, &[]);
    // Both id arrays unindexed, one of them with one-sided links.
    assert_eq!(report.findings().len(), 2, "{report}");
}

#[tokio::test]
async fn stuck_room_long_and_over_8_mib() {
    let db = fresh("audit_stuck_room").await;
    seeds::stuck_room(&db, 30).await;
    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    nothing_unbounded_but(&report, &["rooms.messages"]);
    let rooms = collection(&report, "rooms");
    let messages = &rooms.arrays[0];
    assert_eq!(
        (messages.path.as_str(), messages.seen, messages.max),
        ("messages", 31, seeds::STUCK_MESSAGES as u64)
    );
    // String `_id`s and no date: the age is not known.
    assert_eq!(messages.growth, None);
    assert_eq!((rooms.sizes.over_2mib, rooms.sizes.over_8mib), (1, 1));
    let costly: Vec<String> = rooms.sizes.costly_updates().collect();
    assert_eq!(
        costly,
        ["each small update to _id room1 rewrites 16.8 MB (the whole document)"]
    );
    assert!(report.to_string().contains(&costly[0]));
    assert_eq!(report.references().count(), 0, "{report}");
    assert_eq!(report.findings().len(), 2, "{report}");
}

#[tokio::test]
async fn shop_two_unindexed_references_one_inside_the_items() {
    let db = fresh("audit_shop").await;
    seeds::shop(&db, 300).await;
    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    assert_eq!(
        references(&report),
        [
            ("orders.customer_id -> customers".to_owned(), 50, 50, false),
            (
                "orders.items.product_id -> products".to_owned(),
                20,
                20,
                false
            ),
        ]
    );
    assert!(report
        .references()
        .all(|r| !r.array && r.one_sided.is_none()));
    nothing_unbounded_but(&report, &[]);
    let items = collection(&report, "orders")
        .arrays
        .iter()
        .find(|a| a.path == "items")
        .unwrap();
    assert_eq!(items.max, 4);
    assert_eq!(report.polymorphic().count(), 0, "{report}");
    assert_eq!(report.findings().len(), 2, "{report}");
}

#[tokio::test]
async fn library_the_indexed_author_id_is_no_finding() {
    let db = fresh("audit_library").await;
    seeds::library(&db, 200).await;
    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    assert_eq!(
        references(&report),
        [("books.author_id -> authors".to_owned(), 30, 30, true)]
    );
    assert!(!reference(&report, "books.author_id").is_finding());
    nothing_unbounded_but(&report, &[]);
    let reviews = &collection(&report, "products").arrays[0];
    assert_eq!((reviews.path.as_str(), reviews.max), ("reviews", 5));
    assert!(!report.has_findings(), "{report}");
}

#[tokio::test]
async fn catalog_the_polymorphic_details_and_the_sku_ids() {
    let db = fresh("audit_catalog").await;
    seeds::catalog(&db, 100).await;
    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    let shapes: Vec<_> = report.polymorphic().collect();
    assert_eq!(shapes.len(), 1, "{report}");
    let details = shapes[0];
    assert_eq!(
        (
            details.collection.as_str(),
            details.tag.as_str(),
            details.path.as_str()
        ),
        ("items", "type", "details")
    );
    let variants: Vec<(&str, u64, Vec<&str>)> = details
        .variants
        .iter()
        .map(|v| {
            (
                v.tag.as_str(),
                v.seen,
                v.keys.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        variants,
        [
            ("book", 50, vec!["author", "isbn", "size"]),
            ("dvd", 50, vec!["actor", "director", "media"]),
        ]
    );
    // The products' sku ids are `_id`s of skus, and nothing indexes them.
    assert_eq!(
        references(&report),
        [("products.skus -> skus".to_owned(), 60, 60, false)]
    );
    assert!(reference(&report, "products.skus").array);
    nothing_unbounded_but(&report, &[]);
    assert_eq!(report.findings().len(), 1, "{report}");
}

#[tokio::test]
async fn messy_no_false_reference_and_no_crash_on_mixed_types() {
    let db = fresh("audit_messy").await;
    seeds::messy(&db, 100_000).await;
    for options in [
        AuditOptions::default(),
        AuditOptions {
            full_scan: true,
            ..AuditOptions::default()
        },
    ] {
        let report = audit(&db, &options).await.unwrap();
        let messy = collection(&report, "messy");
        let expected = if options.full_scan { 100_000 } else { 1_000 };
        assert_eq!(messy.read, expected);
        assert_eq!(report.references().count(), 0, "{report}");
        assert_eq!(report.polymorphic().count(), 0, "{report}");
        nothing_unbounded_but(&report, &[]);
        let tags = messy.arrays.iter().find(|a| a.path == "tags").unwrap();
        assert_eq!(tags.max, 4);
        assert_eq!(tags.growth, None, "an int `_id` and no top-level date");
        assert!(!report.has_findings(), "{report}");
        if options.full_scan {
            // One document in three holds an array.
            assert_eq!(tags.seen, 33_334);
        }
    }
}
