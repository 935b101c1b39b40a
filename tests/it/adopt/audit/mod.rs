//! The audit of a database written without these rules, by the raw driver
//! as old code would have written it: seed 000's stuck chat room (one room
//! that took every message with `$push`) beside rooms and users that stay
//! small.

use mongodb::bson::{doc, Document};
use schema_core::cli::{run_with, Outcome};
use schema_core::{audit, AuditOptions, Schema};

use crate::support;

mod declared;
mod encrypted;
mod growth;
mod output;
mod seeds;

/// The text of every message: marked, so a report that quoted stored data
/// would show it.
fn text() -> String {
    "stored-message-".repeat(500)
}

/// 2,000 messages of 7,500 bytes in room `stuck` (15 MB, past what any
/// bounded array should hold), 30 rooms of 0 to 9 messages, 50 users of at
/// most 5 tags.
async fn seed(db: &mongodb::Database) {
    let message = |i: i32| doc! { "n": i, "text": text() };
    let stuck = doc! {
        "_id": "stuck",
        "name": "general",
        "messages": (0..2000).map(message).collect::<Vec<Document>>(),
    };
    let rooms = db.collection::<Document>("rooms");
    rooms.insert_one(stuck).await.unwrap();
    let small: Vec<Document> = (0..30)
        .map(|r| {
            doc! {
                "_id": format!("room_{r}"),
                "messages": (0..r % 10).map(message).collect::<Vec<Document>>(),
            }
        })
        .collect();
    rooms.insert_many(small).await.unwrap();
    let users: Vec<Document> = (0..50)
        .map(|u| {
            let tags: Vec<String> = (0..u % 6).map(|t| format!("t{t}")).collect();
            doc! { "_id": u, "tags": tags, "profile": { "langs": ["en"] } }
        })
        .collect();
    db.collection::<Document>("users")
        .insert_many(users)
        .await
        .unwrap();
}

#[tokio::test]
async fn the_stuck_room_is_found_and_the_bounded_arrays_are_not() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "audit").await;
    seed(&db).await;
    for options in [
        AuditOptions::default(),
        AuditOptions {
            full_scan: true,
            ..AuditOptions::default()
        },
    ] {
        let report = audit(&db, &options).await.unwrap();
        let names: Vec<&str> = report.collections.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["rooms", "users"]);

        let rooms = &report.collections[0];
        assert_eq!(rooms.read, 31);
        let messages = rooms.arrays.iter().find(|a| a.path == "messages").unwrap();
        assert_eq!((messages.seen, messages.max), (31, 2000));
        // Nearest rank: 30 of the 31 rooms hold at most 9, the 31st 2,000.
        assert_eq!((messages.p50, messages.p99), (5, 2000));
        let why = messages
            .unbounded
            .as_deref()
            .expect("the stuck room's messages");
        assert!(
            why.contains("2000 items")
                && why.contains("#[embed(max = N)]")
                && why.contains("#[reference(index)]"),
            "{why}"
        );
        assert_eq!(rooms.sizes.over_8mib, 1, "{:?}", rooms.sizes);
        assert_eq!(rooms.sizes.over_2mib, 1);
        assert_eq!(rooms.sizes.largest[0].0, "stuck");
        assert!(rooms.sizes.max > 15_000_000, "{}", rooms.sizes.max);

        let users = &report.collections[1];
        let paths: Vec<(&str, u64)> = users
            .arrays
            .iter()
            .map(|a| (a.path.as_str(), a.max))
            .collect();
        assert_eq!(paths, [("profile.langs", 1), ("tags", 5)]);
        assert!(users.arrays.iter().all(|a| a.unbounded.is_none()));
        assert_eq!(users.sizes.over_2mib, 0);

        let flagged: Vec<String> = report
            .unbounded()
            .map(|a| format!("{}.{}", a.collection, a.path))
            .collect();
        assert_eq!(flagged, ["rooms.messages"]);
        assert!(report.has_findings());
        // The report names documents by `_id`, never by what they hold.
        let shown = report.to_string();
        assert!(
            shown.contains("_id stuck") && !shown.contains("stored-message"),
            "{shown}"
        );
    }
}

#[tokio::test]
async fn an_audit_writes_nothing_and_a_clean_database_has_no_findings() {
    let (client, log) = support::keeping_client().await;
    let db = support::fresh_db(&client, "audit_clean").await;
    let users: Vec<Document> = (0..20)
        .map(|u| doc! { "_id": u, "tags": ["a", "b"] })
        .collect();
    db.collection::<Document>("users")
        .insert_many(users)
        .await
        .unwrap();
    log.clear();
    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    assert!(!report.has_findings(), "{report}");
    let sent = log.names();
    assert!(
        sent.iter().all(
            |n| ["listCollections", "aggregate", "getMore", "killCursors"].contains(&n.as_str())
        ),
        "{sent:?}"
    );
}

#[tokio::test]
async fn the_schema_command_audits_and_exits_with_1_on_a_finding() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "audit_command").await;
    seed(&db).await;
    let uri = support::uri();
    let run = |args: Vec<String>| {
        let uri = uri.clone();
        async move {
            let mut printed: Vec<u8> = Vec::new();
            let argv = ["schema".to_owned(), "--uri".to_owned(), uri]
                .into_iter()
                .chain(args);
            let outcome = run_with(&Schema::new(), argv, &mut printed).await.unwrap();
            (outcome, String::from_utf8(printed).unwrap())
        }
    };
    let name = db.name().to_owned();
    let (outcome, printed) = run(vec!["--db".into(), name.clone(), "audit".into()]).await;
    assert_eq!(outcome, Outcome::Found, "{printed}");
    assert!(
        printed.contains("rooms.messages: 31 arrays, max 2000")
            && printed.contains("looks unbounded"),
        "{printed}"
    );
    assert!(
        printed.contains("users.tags: 50 arrays, max 5, p50 2, p99 5\n"),
        "{printed}"
    );
    assert!(!printed.contains("stored-message"), "{printed}");
    // Raised past the room's 2,000 messages, the long threshold flags nothing
    // but the document over 8 MiB still counts.
    let (outcome, printed) = run(vec![
        "--db".into(),
        name,
        "audit".into(),
        "--full".into(),
        "--long".into(),
        "5000".into(),
    ])
    .await;
    assert_eq!(outcome, Outcome::Found, "{printed}");
    assert!(
        !printed.contains("looks unbounded") && printed.contains("1 over 8 MiB"),
        "{printed}"
    );
}
