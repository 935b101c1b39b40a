//! Typed filters against the real server: every operator, `and`/`or`/`not`
//! and the array predicates select exactly the documents a Rust predicate
//! over the same data selects; a value with no BSON form sends nothing.

use crate::support;

use schema_core::filter::{self, Node, PredicateKind};
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "people")]
struct Person {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "fullName")]
    name: String,
    age: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nick: Option<String>,
    #[embed(max = 5)]
    tags: Vec<String>,
    visits: u64,
}

fn people() -> Vec<Person> {
    let row = |id: &str, name: &str, age: i32, nick: Option<&str>, tags: &[&str]| Person {
        id: id.to_owned(),
        name: name.to_owned(),
        age,
        nick: nick.map(str::to_owned),
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        visits: age as u64 * 3,
    };
    vec![
        row("p1", "Ada", 36, Some("countess"), &["math", "poetry"]),
        row("p2", "Bob", 17, None, &["chess"]),
        row("p3", "Cy", 52, Some("cy"), &[]),
        row("p4", "Di", 17, None, &["math", "chess", "go"]),
        row("p5", "Ed", 70, Some("eddie"), &["poetry"]),
    ]
}

/// The ids the server returns for `filter`, next to the ids `expect` keeps,
/// both sorted; fails when the server finds none at all (a test that could
/// not tell a broken filter from an empty answer).
async fn check(
    repo: &Repo<Person>,
    what: &str,
    filter: Filter<Person>,
    expect: impl Fn(&Person) -> bool,
) {
    let mut wanted: Vec<String> = people()
        .into_iter()
        .filter(|p| expect(p))
        .map(|p| p.id)
        .collect();
    wanted.sort();
    // Five documents, every operator on fields with no index: a scan on
    // purpose (the index guard has its own tests).
    let mut found: Vec<String> = repo
        .find(filter)
        .scan()
        .all()
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"))
        .into_iter()
        .map(|p| p.id)
        .collect();
    found.sort();
    assert_eq!(found, wanted, "{what}");
}

#[tokio::test]
async fn every_operator_selects_what_it_says() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "typed_filters").await;
    Schema::new().with::<Person>().sync(&db).await.unwrap();
    let repo = Repo::<Person>::new(&db);
    repo.insert_many(&people()).await.unwrap();
    let f = Person::FIELDS;
    let s = |v: &str| v.to_owned();

    check(&repo, "eq", f.name.eq("Ada"), |p| p.name == "Ada").await;
    check(&repo, "eq owned", f.name.eq(&s("Bob")), |p| p.name == "Bob").await;
    check(&repo, "ne", f.age.ne(&17), |p| p.age != 17).await;
    check(&repo, "gt", f.age.gt(&36), |p| p.age > 36).await;
    check(&repo, "gte", f.age.gte(&36), |p| p.age >= 36).await;
    check(&repo, "lt", f.age.lt(&36), |p| p.age < 36).await;
    check(&repo, "lte", f.age.lte(&36), |p| p.age <= 36).await;
    check(&repo, "u64 field", f.visits.gt(&100), |p| p.visits > 100).await;
    check(&repo, "is_in", f.name.is_in(["Ada", "Ed", "Zed"]), |p| {
        ["Ada", "Ed"].contains(&p.name.as_str())
    })
    .await;
    check(&repo, "not_in", f.age.not_in([&17, &70]), |p| {
        p.age != 17 && p.age != 70
    })
    .await;
    check(&repo, "is_in empty", f.age.is_in(&[] as &[i32]), |_| false).await;
    check(&repo, "exists", f.nick.exists(true), |p| p.nick.is_some()).await;
    check(&repo, "exists false", f.nick.exists(false), |p| {
        p.nick.is_none()
    })
    .await;
    // An `Option<String>` field compares with a `str`.
    check(&repo, "option eq", f.nick.eq("cy"), |p| {
        p.nick.as_deref() == Some("cy")
    })
    .await;
    check(&repo, "option gt", f.nick.gt("d"), |p| {
        p.nick.as_deref().is_some_and(|n| n > "d")
    })
    .await;
    check(&repo, "option eq none", f.nick.eq(&None), |p| {
        p.nick.is_none()
    })
    .await;
    check(&repo, "contains", f.tags.contains(&s("math")), |p| {
        p.tags.contains(&s("math"))
    })
    .await;
    check(
        &repo,
        "contains_all",
        f.tags.contains_all(&[s("chess"), s("math")]),
        |p| p.tags.contains(&s("chess")) && p.tags.contains(&s("math")),
    )
    .await;
    check(
        &repo,
        "contains_all empty",
        f.tags.contains_all(&[]),
        |_| false,
    )
    .await;
    check(&repo, "whole array eq", f.tags.eq(&vec![s("chess")]), |p| {
        p.tags == [s("chess")]
    })
    .await;

    check(&repo, "and", f.age.gte(&17) & f.age.lt(&50), |p| {
        p.age >= 17 && p.age < 50
    })
    .await;
    check(
        &repo,
        "and on one operator twice",
        f.age.gt(&10).and(f.age.gt(&20)),
        |p| p.age > 20,
    )
    .await;
    check(
        &repo,
        "and with eq and a range on one field",
        f.age.eq(&17) & f.age.lt(&20),
        |p| p.age == 17,
    )
    .await;
    check(&repo, "or", f.age.lt(&18) | f.name.eq("Ed"), |p| {
        p.age < 18 || p.name == "Ed"
    })
    .await;
    check(&repo, "not", !f.nick.eq("cy"), |p| {
        p.nick.as_deref() != Some("cy")
    })
    .await;
    check(
        &repo,
        "nested",
        (f.age.lt(&18) | f.age.gt(&60)) & !f.tags.contains(&s("go")),
        |p| (p.age < 18 || p.age > 60) && !p.tags.contains(&s("go")),
    )
    .await;
    check(&repo, "and of none", filter::and([]), |_| true).await;
    check(&repo, "or of none", filter::or([]), |_| false).await;
    check(&repo, "all", Filter::all(), |_| true).await;
    check(
        &repo,
        "raw document",
        bson::doc! { "age": 17 }.into(),
        |p| p.age == 17,
    )
    .await;

    // find_one and count take the same filters.
    let one = repo
        .find_one(f.name.eq("Cy"))
        .scan()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(one.id, "p3");
    let minors = repo.count(f.age.lt(&18)).scan().await.unwrap();
    assert_eq!(
        minors,
        people().iter().filter(|p| p.age < 18).count() as u64
    );
}

#[tokio::test]
async fn a_value_without_bson_form_sends_nothing() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "typed_filters_err").await;
    let repo = Repo::<Person>::new(&db);
    let f = Person::FIELDS;
    log.clear();
    // A `u64` above `i64::MAX` has no BSON form, deep inside an `or`.
    let filter = f.age.eq(&1) | (f.name.eq("x") & f.visits.gte(&u64::MAX));
    let err = repo.find(filter).await.unwrap_err();
    assert!(
        matches!(&err, Error::Serialize { field: Some(field), .. } if field == "visits"),
        "{err:?}"
    );
    let err = repo
        .count(f.visits.is_in([&1, &u64::MAX]))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Serialize { .. }), "{err:?}");
    let err = repo.find_one(!f.visits.lt(&u64::MAX)).await.unwrap_err();
    assert!(matches!(err, Error::Serialize { .. }), "{err:?}");
    assert_eq!(log.operations(), Vec::<String>::new(), "nothing was sent");
}

#[test]
fn the_tree_names_paths_and_kinds() {
    let f = Person::FIELDS;
    let filter = f.age.eq(&3) & (f.name.gt("A") | f.nick.exists(true));
    let Ok(Node::And(parts)) = filter.node() else {
        panic!("an and: {filter:?}");
    };
    let Node::Predicate(age) = &parts[0] else {
        panic!("a predicate: {:?}", parts[0]);
    };
    assert_eq!((age.path, age.kind()), ("age", PredicateKind::Equality));
    let Node::Or(either) = &parts[1] else {
        panic!("an or: {:?}", parts[1]);
    };
    let kinds: Vec<_> = either
        .iter()
        .map(|n| match n {
            Node::Predicate(p) => (p.path, p.kind()),
            other => panic!("a predicate: {other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("fullName", PredicateKind::Range),
            ("nick", PredicateKind::Other)
        ]
    );
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Address {
    #[serde(rename = "zipCode")]
    zip: String,
    // Named like the field constants' own parts: still the sub-document's.
    name: String,
    max: i32,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Profile {
    display_name: String,
    home: Option<Box<Address>>,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Line {
    sku: String,
    #[serde(rename = "qty")]
    quantity: i32,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Tagged<T> {
    label: String,
    value: T,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "customers")]
struct Customer {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "p")]
    profile: Profile,
    #[embed(max = 10)]
    lines: Vec<Line>,
    extra: Option<Tagged<i64>>,
}

fn customers() -> Vec<Customer> {
    let line = |sku: &str, quantity: i32| Line {
        sku: sku.to_owned(),
        quantity,
    };
    let customer =
        |id: &str, name: &str, zip: Option<&str>, lines: Vec<Line>, extra: Option<i64>| Customer {
            id: id.to_owned(),
            profile: Profile {
                display_name: name.to_owned(),
                home: zip.map(|zip| {
                    Box::new(Address {
                        zip: zip.to_owned(),
                        name: format!("home of {name}"),
                        max: zip.len() as i32,
                    })
                }),
            },
            lines,
            extra: extra.map(|value| Tagged {
                label: "x".to_owned(),
                value,
            }),
        };
    vec![
        customer(
            "c1",
            "Ada",
            Some("75001"),
            vec![line("W-1", 2), line("G-2", 12)],
            Some(5),
        ),
        customer("c2", "Bob", None, vec![line("W-1", 12)], None),
        customer("c3", "Cy", Some("10115"), vec![], Some(50)),
        customer("c4", "Di", Some("75001"), vec![line("G-2", 1)], None),
    ]
}

async fn check_nested(
    repo: &Repo<Customer>,
    what: &str,
    filter: Filter<Customer>,
    expect: impl Fn(&Customer) -> bool,
) {
    let mut wanted: Vec<String> = customers()
        .into_iter()
        .filter(|c| expect(c))
        .map(|c| c.id)
        .collect();
    wanted.sort();
    // Four documents, nested paths with no index: a scan on purpose.
    let mut found: Vec<String> = repo
        .find(filter)
        .scan()
        .all()
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"))
        .into_iter()
        .map(|c| c.id)
        .collect();
    found.sort();
    assert_eq!(found, wanted, "{what}");
}

#[test]
fn nested_paths_follow_serde_names_at_every_level() {
    let f = Customer::FIELDS;
    assert_eq!(f.profile.name(), "p");
    assert_eq!(f.profile.display_name.name(), "p.displayName");
    assert_eq!(f.profile.home.name(), "p.home");
    assert_eq!(f.profile.home.zip.name(), "p.home.zipCode");
    assert_eq!(f.profile.home.name.name(), "p.home.name");
    assert_eq!(f.profile.home.max.name(), "p.home.max");
    assert_eq!(f.lines.sku.name(), "lines.sku");
    assert_eq!(f.lines.quantity.name(), "lines.qty");
    assert_eq!(f.extra.value.name(), "extra.value");
    // The bounded field keeps its bound below the path.
    assert_eq!(f.lines.max(), 10);
}

#[tokio::test]
async fn nested_paths_and_elem_match_select_what_they_say() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "typed_filters_nested").await;
    let repo = Repo::<Customer>::new(&db);
    repo.insert_many(&customers()).await.unwrap();
    let f = Customer::FIELDS;
    let zip = |c: &Customer| c.profile.home.as_ref().map(|h| h.zip.clone());

    check_nested(&repo, "nested eq", f.profile.display_name.eq("Cy"), |c| {
        c.profile.display_name == "Cy"
    })
    .await;
    check_nested(
        &repo,
        "through Option<Box<_>>",
        f.profile.home.zip.eq("75001"),
        |c| zip(c).as_deref() == Some("75001"),
    )
    .await;
    check_nested(&repo, "nested range", f.profile.home.max.gte(&5), |c| {
        c.profile.home.as_ref().is_some_and(|h| h.max >= 5)
    })
    .await;
    check_nested(
        &repo,
        "whole sub-document eq",
        f.profile.home.eq(&None),
        |c| c.profile.home.is_none(),
    )
    .await;
    check_nested(&repo, "generic sub-document", f.extra.value.gt(&10), |c| {
        c.extra.as_ref().is_some_and(|e| e.value > 10)
    })
    .await;
    let hit = |c: &Customer, sku: &str, min: i32| {
        c.lines.iter().any(|l| l.sku == sku && l.quantity >= min)
    };
    check_nested(
        &repo,
        "elem_match: one item meets both",
        f.lines
            .elem_match(|l| l.sku.eq("W-1") & l.quantity.gte(&10)),
        |c| hit(c, "W-1", 10),
    )
    .await;
    check_nested(
        &repo,
        "dotted paths: any item meets each",
        f.lines.sku.eq("W-1") & f.lines.quantity.gte(&10),
        |c| c.lines.iter().any(|l| l.sku == "W-1") && c.lines.iter().any(|l| l.quantity >= 10),
    )
    .await;
    check_nested(
        &repo,
        "elem_match with or and not",
        f.lines
            .elem_match(|l| l.sku.eq("G-2") & !(l.quantity.lt(&5) | l.quantity.gt(&100))),
        |c| {
            c.lines
                .iter()
                .any(|l| l.sku == "G-2" && l.quantity >= 5 && l.quantity <= 100)
        },
    )
    .await;
    check_nested(
        &repo,
        "contains a whole item",
        f.lines.contains(&Line {
            sku: "G-2".to_owned(),
            quantity: 1,
        }),
        |c| hit(c, "G-2", 1) && c.lines.iter().any(|l| l.quantity == 1),
    )
    .await;
}
